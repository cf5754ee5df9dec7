// @ts-check
/**
 * `pnpm bench`: how fast @hub/compiler's compileConfiguration is, against the YAML parse it
 * cannot avoid (the floor: yaml.parseDocument on the same text) and against a peer
 * (@actions/workflow-parser on a GitHub Actions workflow of the same size). See bench/README.md.
 *
 * Run after `pnpm build` (it imports packages/compiler/dist), ideally with --expose-gc.
 * It prints; it never fails on a missed target. It fails only when a generated document is
 * not valid, since timing an error path would measure the wrong thing.
 */
import { readFileSync } from 'node:fs';
import { register } from 'node:module';
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseDocument } from 'yaml';
import { compileConfiguration } from '../packages/compiler/dist/index.js';
import { generateConfiguration, generateWorkflow } from './generate.js';

// The peer imports its JSON schemas without an import attribute; Node 20 needs the hook.
register('./json-hooks.js', import.meta.url);
const { parseWorkflow, convertWorkflowTemplate, NoOperationTraceWriter } = await import('@actions/workflow-parser');

/** Target sizes in characters; 1,000,000 is the compiler's maxYamlLength and is not exceeded. */
const SIZES = [
  { label: '1 KB', chars: 1_024 },
  { label: '100 KB', chars: 102_400 },
  { label: '1 MB', chars: 1_000_000 },
];
/** Targets from the issue. */
const FLOOR_RATIO_TARGET = 1.5;
const FLOOR_TARGET_SIZES = new Set(['100 KB', '1 MB']);

/** Per measurement: warm up for WARMUP_MS, then sample for BUDGET_MS, within the sample bounds. */
const WARMUP_MS = 500;
const WARMUP_MAX_RUNS = 200;
const BUDGET_MS = 2_000;
const MIN_SAMPLES = 5;
const MAX_SAMPLES = 3_000;

/** @type {unknown} Keeps results alive so that no call can be optimized away. */
let sink;

/**
 * Runs `fn` until the time box is spent and returns the sorted samples in ms. A function
 * that returns a promise is awaited inside its timed region.
 * @param {() => unknown} fn
 * @returns {Promise<number[]>}
 */
async function sample(fn) {
  globalThis.gc?.();
  const warmupStart = performance.now();
  for (let runs = 0; runs < WARMUP_MAX_RUNS && (runs < 2 || performance.now() - warmupStart < WARMUP_MS); runs++) {
    const result = fn();
    sink = result instanceof Promise ? await result : result;
  }
  globalThis.gc?.();
  /** @type {number[]} */
  const samples = [];
  const start = performance.now();
  while (samples.length < MAX_SAMPLES && (samples.length < MIN_SAMPLES || performance.now() - start < BUDGET_MS)) {
    const t0 = performance.now();
    const result = fn();
    sink = result instanceof Promise ? await result : result;
    samples.push(performance.now() - t0);
  }
  return samples.sort((a, b) => a - b);
}

/**
 * @param {number[]} sorted
 * @param {number} q
 */
function quantile(sorted, q) {
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  const high = Math.ceil(at);
  return (sorted[low] ?? 0) + ((sorted[high] ?? 0) - (sorted[low] ?? 0)) * (at - low);
}

/**
 * @typedef {{ size: string, role: string, name: string, bytes: number, runs: number, medianMs: number, iqrPct: number, mbps: number }} Row
 */

/**
 * @param {string} size
 * @param {string} role
 * @param {string} name
 * @param {string} text the text the function reads, for the MB/s figure
 * @param {() => unknown} fn
 * @returns {Promise<Row>}
 */
async function measure(size, role, name, text, fn) {
  const samples = await sample(fn);
  const medianMs = quantile(samples, 0.5);
  const bytes = Buffer.byteLength(text, 'utf8');
  const iqrPct = ((quantile(samples, 0.75) - quantile(samples, 0.25)) / medianMs) * 100;
  return { size, role, name, bytes, runs: samples.length, medianMs, iqrPct, mbps: bytes / 1e6 / (medianMs / 1000) };
}

/**
 * @param {boolean} condition
 * @param {string} message
 * @returns {asserts condition}
 */
function check(condition, message) {
  if (!condition) throw new Error(`bench: ${message}`);
}

/** @param {string} file */
function versionOf(file) {
  return /** @type {{ version: string }} */ (JSON.parse(readFileSync(new URL(file, import.meta.url), 'utf8'))).version;
}

/**
 * @param {(string | number)[][]} rows
 * @param {('l' | 'r')[]} align
 */
function table(rows, align) {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => String(row[column]).length))) ?? [];
  const line = (/** @type {(string | number)[]} */ row) =>
    row.map((cell, column) => (align[column] === 'r' ? String(cell).padStart(widths[column] ?? 0) : String(cell).padEnd(widths[column] ?? 0))).join('  ');
  const [head, ...body] = rows;
  return [line(head ?? []), widths.map((width) => '-'.repeat(width)).join('  '), ...body.map(line)].join('\n');
}

const trace = new NoOperationTraceWriter();
const peerName = 'parseWorkflow+convertWorkflowTemplate';

console.log('Hub compiler benchmark');
console.log(
  `node ${process.version}, ${cpus().length} x ${cpus()[0]?.model ?? 'unknown CPU'}; yaml ${versionOf('../node_modules/yaml/package.json')}, ` +
    `@actions/workflow-parser ${versionOf('../node_modules/@actions/workflow-parser/package.json')}; ` +
    `gc between measurements: ${globalThis.gc === undefined ? 'no (run node with --expose-gc)' : 'yes'}`,
);
console.log(`Each measurement: ${WARMUP_MS} ms warm-up, then samples for ${BUDGET_MS} ms (${MIN_SAMPLES} to ${MAX_SAMPLES}); median shown.\n`);

/** @type {Row[]} */
const rows = [];
/** @type {{ size: string, floorRatio: number, peerRatio: number, floorTarget: boolean }[]} */
const ratios = [];

for (const size of SIZES) {
  const config = generateConfiguration(size.chars);
  const workflow = generateWorkflow(size.chars);
  const input = { yaml: config.text, partials: config.partials };
  const file = { name: '.github/workflows/generated.yml', content: workflow.text };

  // Validity, once, before any timing: a benchmark of the error path would be meaningless.
  const compiled = compileConfiguration(input);
  check(compiled.ok, `the generated ${size.label} configuration does not compile:\n${JSON.stringify(compiled.ok ? [] : compiled.issues.slice(0, 5), null, 2)}`);
  check(compiled.value.triggers.length === config.triggers, `the ${size.label} configuration compiled to ${compiled.value.triggers.length} triggers, not ${config.triggers}`);
  check(parseDocument(config.text).errors.length === 0, `yaml.parseDocument rejects the ${size.label} configuration`);
  const parsed = parseWorkflow(file, trace);
  check(parsed.value !== undefined && parsed.context.errors.count === 0, `the ${size.label} workflow does not parse: ${parsed.context.errors.getErrors().slice(0, 5).map((e) => e.message).join('; ')}`);
  const template = await convertWorkflowTemplate(parsed.context, parsed.value);
  check(template.errors === undefined && template.jobs.length === workflow.jobs, `the ${size.label} workflow does not convert: ${JSON.stringify(template.errors?.slice(0, 5))}`);

  console.log(
    `${size.label}: configuration ${config.text.length} chars (${config.environments} environments, ${config.triggers} triggers, ${config.steps} steps, ` +
      `${config.partials.length} partial); workflow ${workflow.text.length} chars (${workflow.jobs} jobs, ${workflow.steps} steps)`,
  );

  const compile = await measure(size.label, 'hub', 'compileConfiguration', config.text, () => compileConfiguration(input));
  const floor = await measure(size.label, 'floor', 'yaml.parseDocument (same text)', config.text, () => parseDocument(config.text));
  const peer = await measure(size.label, 'peer', peerName, workflow.text, async () => {
    const result = parseWorkflow(file, trace);
    return convertWorkflowTemplate(result.context, /** @type {NonNullable<typeof result.value>} */ (result.value));
  });
  const peerParse = await measure(size.label, 'info', 'parseWorkflow only', workflow.text, () => parseWorkflow(file, trace));
  const peerFloor = await measure(size.label, 'info', 'yaml.parseDocument (workflow text)', workflow.text, () => parseDocument(workflow.text));
  rows.push(compile, floor, peer, peerParse, peerFloor);
  ratios.push({
    size: size.label,
    floorRatio: compile.medianMs / floor.medianMs,
    peerRatio: compile.mbps / peer.mbps,
    floorTarget: FLOOR_TARGET_SIZES.has(size.label),
  });
}
void sink;

console.log('');
console.log(
  table(
    [
      ['size', 'role', 'function', 'bytes', 'runs', 'median ms', 'IQR', 'MB/s'],
      ...rows.map((row) => [
        row.size,
        row.role,
        row.name,
        row.bytes,
        row.runs,
        row.medianMs.toFixed(3),
        `${row.iqrPct.toFixed(1)}%`,
        row.mbps.toFixed(2),
      ]),
    ],
    ['l', 'l', 'l', 'r', 'r', 'r', 'r', 'r'],
  ),
);
console.log('');
console.log(
  table(
    [
      ['size', 'compile / floor (ms)', `target <= ${FLOOR_RATIO_TARGET}x`, 'compile / peer (MB/s)', 'target >= 1x'],
      ...ratios.map((ratio) => [
        ratio.size,
        `${ratio.floorRatio.toFixed(2)}x`,
        ratio.floorTarget ? (ratio.floorRatio <= FLOOR_RATIO_TARGET ? 'met' : 'MISSED') : 'n/a',
        `${ratio.peerRatio.toFixed(2)}x`,
        ratio.peerRatio >= 1 ? 'met' : 'MISSED',
      ]),
    ],
    ['l', 'r', 'l', 'r', 'l'],
  ),
);
console.log('');
console.log('hub   = compileConfiguration({ yaml, partials }) with default limits: policy checks, parse, JSON Schema validation, rules, model.');
console.log('floor = yaml.parseDocument(yaml) with default options, on the same text.');
console.log(`peer  = @actions/workflow-parser ${peerName}: parseWorkflow({ name, content }, NoOperationTraceWriter)`);
console.log('        (yaml.parseDocument with keepSourceTokens + LineCounter, schema validation into template tokens, expression parsing),');
console.log('        then await convertWorkflowTemplate(context, root) with default options, on a generated workflow of the same size.');
console.log('info  = the peer without its conversion, and the peer text through yaml.parseDocument; not part of any target.');
console.log('MB/s  = UTF-8 bytes / 1e6 / median seconds; IQR = (p75 - p25) / median.');
