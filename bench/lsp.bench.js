// @ts-check
/**
 * `pnpm bench:lsp`: how long `hub lsp --stdio` takes from an edit to its diagnostics on a
 * 1,000-line configuration, through the real child process and LSP over its pipes, against the
 * compiler's own compile of the same text in this process, measured in the same run. The issue's
 * target: diagnostics within 200 ms of an edit (judged on the 95th percentile).
 *
 * Each sample sends one textDocument/didChange (the whole text, alternately valid and with one
 * issue) and waits for the publishDiagnostics that answers it (no issue, or the one). Two kinds
 * of edit, interleaved: a mistyped environment in the last step (letters in a value: the server
 * keeps the document's includes, src/lsp/include-cache.ts), and a mistyped include path (the
 * server parses the document again for its includes, as hub validate does). That time holds the server's debounce (DEBOUNCE_MS in
 * packages/cli/src/lsp/server.ts, 50 ms), its compile, and both ways of JSON-RPC. Run after
 * `pnpm build`. `--rounds N` sets the samples (default 120, half of each edit). It prints; it never fails on a
 * missed target, only when the server does not answer as it should.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { compileConfiguration } from '../packages/compiler/dist/index.js';
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
} from '../packages/cli/node_modules/vscode-jsonrpc/lib/node/main.js';
import { generateConfiguration, PARTIAL } from './generate.js';
import { check, cleanupOnExit, quantile, table } from './report.js';

const HUB = fileURLToPath(new URL('../packages/cli/dist/bundle/hub.js', import.meta.url));
check(existsSync(HUB), 'no built hub: run `pnpm build` (tsc -b, then the CLI bundle)');
const roundsAt = process.argv.indexOf('--rounds');
const rounds = roundsAt === -1 ? 120 : Number(process.argv[roundsAt + 1]);
check(Number.isInteger(rounds) && rounds > 0, '--rounds takes a positive integer');
const LINES = 1000;
const TARGET_MS = 200;
const WARMUP = 5;
/** The server's debounce (src/lsp/server.ts DEBOUNCE_MS), for the note under the table. */
const DEBOUNCE_MS = 50;

/** A generated configuration of at least LINES lines (the generator sizes by characters). */
function configurationOfLines() {
  for (let target = 20_000; ; target += 2_000) {
    const generated = generateConfiguration(target);
    if (generated.text.split('\n').length - 1 >= LINES) return generated;
  }
}
const generated = configurationOfLines();
const valid = generated.text;
const lastEnvironment = valid.lastIndexOf('environment: env-');
check(lastEnvironment > 0, 'the generated configuration has no step environment');
const lastInclude = valid.lastIndexOf(`include: ${PARTIAL.path}`);
check(lastInclude > 0, 'the generated configuration includes no partial');
/** The same text with one issue: the last step's environment mistyped (env-… → emv-…), or the last include's path (testing.md → testin.md). */
const edits = [
  {
    name: 'a value (environment) mistyped',
    broken: `${valid.slice(0, lastEnvironment)}environment: emv-${valid.slice(lastEnvironment + 'environment: env-'.length)}`,
  },
  {
    name: 'an include path mistyped',
    broken: `${valid.slice(0, lastInclude)}include: ${PARTIAL.path.replace('testing', 'testin')}${valid.slice(lastInclude + `include: ${PARTIAL.path}`.length)}`,
  },
];
check(
  compileConfiguration({ yaml: valid, partials: generated.partials }).ok,
  'the generated configuration does not compile',
);
for (const { name, broken } of edits) {
  // The include's partial is still carried with the mistyped path: discovery would not send it, so neither does the baseline.
  const partials = broken.includes(`include: ${PARTIAL.path}`) ? generated.partials : [];
  const compiled = compileConfiguration({ yaml: broken, partials });
  check(!compiled.ok && compiled.issues.length === 1, `${name}: the broken text should have exactly one issue`);
}

const { cleanups, cleanUp } = cleanupOnExit([]);
const repo = mkdtempSync(join(tmpdir(), 'hub-lsp-bench-'));
cleanups.push(() => rmSync(repo, { recursive: true, force: true }));
mkdirSync(join(repo, '.hub/partials'), { recursive: true });
writeFileSync(join(repo, '.hub/config.yml'), valid);
writeFileSync(join(repo, '.hub/partials', PARTIAL.path), PARTIAL.content);
const uri = pathToFileURL(join(repo, '.hub/config.yml')).href;

const child = spawn(process.execPath, [HUB, 'lsp', '--stdio'], {
  cwd: repo,
  env: { PATH: process.env.PATH ?? '', HOME: repo },
  stdio: ['pipe', 'pipe', 'inherit'],
});
cleanups.push(() => child.kill());
const connection = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
/** @type {((count: number) => void) | undefined} */
let onPublished;
connection.onNotification(
  'textDocument/publishDiagnostics',
  (/** @type {{ uri: string, diagnostics: unknown[] }} */ params) => {
    if (params.uri === uri) onPublished?.(params.diagnostics.length);
  },
);
connection.listen();

/** Sends `text` as version `version` and resolves with the ms until diagnostics with `count` entries arrive. */
function edit(/** @type {number} */ version, /** @type {string} */ text, /** @type {number} */ count) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`bench: no diagnostics with ${count} entries within 10 s`)),
      10_000,
    );
    const t0 = performance.now();
    onPublished = (published) => {
      if (published !== count) return;
      clearTimeout(timer);
      onPublished = undefined;
      resolve(performance.now() - t0);
    };
    void connection.sendNotification('textDocument/didChange', {
      textDocument: { uri, version },
      contentChanges: [{ text }],
    });
  });
}

/** The in-process baseline: ms of compileConfiguration of the valid text and of a broken one, as the server compiles them. */
function compileMs(/** @type {string} */ broken) {
  /** @type {number[]} */
  const times = [];
  for (const yaml of [broken, valid]) {
    const t0 = performance.now();
    compileConfiguration({ yaml, partials: yaml.includes(`include: ${PARTIAL.path}`) ? generated.partials : [] });
    times.push(performance.now() - t0);
  }
  return times;
}

try {
  await connection.sendRequest('initialize', { processId: null, rootUri: pathToFileURL(repo).href, capabilities: {} });
  await connection.sendNotification('initialized', {});
  await connection.sendNotification('textDocument/didOpen', {
    textDocument: { uri, languageId: 'yaml', version: 1, text: valid },
  });
  let version = 1;
  for (let i = 0; i < WARMUP; i += 1) {
    for (const { broken } of edits) {
      await edit(++version, broken, 1);
      await edit(++version, valid, 0);
      compileMs(broken);
    }
  }
  /** @type {number[][]} */
  const lsp = edits.map(() => []);
  /** @type {number[]} */
  const compile = [];
  for (let i = 0; i < rounds; i += 1) {
    // Interleaved: a slow spell of a shared machine hits each alike.
    const at = i % edits.length;
    const { broken } = /** @type {(typeof edits)[number]} */ (edits[at]);
    const broke = Math.floor(i / edits.length) % 2 === 0;
    lsp[at]?.push(/** @type {number} */ (await edit(++version, broke ? broken : valid, broke ? 1 : 0)));
    compile.push(...compileMs(broken));
  }
  compile.sort((a, b) => a - b);
  const baseline = quantile(compile, 0.5);
  const lines = valid.split('\n').length - 1;
  console.log(
    `hub lsp: edit → diagnostics on a ${lines}-line configuration (${valid.length} characters), ${rounds} samples (after ${WARMUP * 2 * edits.length} warm-up edits), ${cpus().length} CPUs, load average ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}`,
  );
  const rows = edits.map(({ name }, at) => {
    const sorted = [...(lsp[at] ?? [])].sort((a, b) => a - b);
    const p95 = quantile(sorted, 0.95);
    return [
      `didChange → publishDiagnostics: ${name}`,
      sorted.length,
      quantile(sorted, 0.5).toFixed(1),
      p95.toFixed(1),
      (sorted.at(-1) ?? 0).toFixed(1),
      `${(quantile(sorted, 0.5) / baseline).toFixed(2)}x`,
      `p95 <= ${TARGET_MS} ms: ${p95 <= TARGET_MS ? 'met' : 'MISSED'}`,
    ];
  });
  console.log(
    table(
      [
        ['measure', 'samples', 'p50 ms', 'p95 ms', 'max ms', '÷ compile p50', 'target'],
        ...rows,
        [
          'compileConfiguration in-process (baseline)',
          compile.length,
          baseline.toFixed(1),
          quantile(compile, 0.95).toFixed(1),
          (compile.at(-1) ?? 0).toFixed(1),
          '1.00x',
          'baseline',
        ],
      ],
      ['l', 'r', 'r', 'r', 'r', 'r', 'l'],
    ),
  );
  console.log(
    `(the server waits ${DEBOUNCE_MS} ms after an edit for the next before it compiles: most of the difference)`,
  );
  await connection.sendRequest('shutdown');
  await connection.sendNotification('exit');
} finally {
  connection.dispose();
  await cleanUp();
}
