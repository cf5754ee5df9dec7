// @ts-check
/**
 * `pnpm bench:validation`: what checking a request body costs with the validator over the OpenAPI
 * document (ContractValidator, packages/server/dist/openapi/validator.js) against the
 * hand-written readers it replaced (bench/baseline/readers.js, as at commit 5875e52), on the
 * bodies of validate (shape A and the legacy bundle) and of dispatch, valid and not.
 * See bench/README.md.
 *
 * Run after `pnpm build`. In process, no network. It prints; it never fails on a missed target.
 * It fails only if a body is not judged as meant (a valid one refused, an invalid one accepted)
 * by either side, since timing the wrong path would measure the wrong thing.
 */
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { operationsOf } from '../packages/server/dist/openapi/contract.js';
import { ContractValidator } from '../packages/server/dist/openapi/validator.js';
import { readConfigurationBody, readDispatchBody } from './baseline/readers.js';
import { generateConfiguration } from './generate.js';
import { check, quantile, table } from './report.js';

/**
 * A call takes microseconds, close to performance.now()'s own cost, so a sample is a batch of
 * calls timed together (sized in the warm-up to take about BATCH_MS) and reported per call.
 * Each function is warmed up for WARMUP_MS; then rounds, one batch of each per round, run until
 * every function had about BUDGET_MS in all (MIN_SAMPLES to MAX_SAMPLES rounds).
 */
const WARMUP_MS = 500;
const BATCH_MS = 1;
const BUDGET_MS = 2_000;
const MIN_SAMPLES = 7;
const MAX_SAMPLES = 20_000;
/** The requirement: validation from the document costs no more than the readers did. */
const RATIO_TARGET = 1;

/** @type {unknown} Keeps results alive so that no call can be optimized away. */
let sink;

/**
 * The function's outcome on `body`: 'ok', or 'refused' when it throws the 400 (anything else thrown is re-thrown).
 * @param {(body: unknown) => unknown} fn
 * @param {unknown} body
 */
function outcome(fn, body) {
  try {
    sink = fn(body);
    return 'ok';
  } catch (error) {
    if (error instanceof Error && 'issues' in error && Array.isArray(error.issues) && error.issues.length > 0)
      return 'refused';
    throw error;
  }
}

/**
 * `n` calls, in ms.
 * @param {(body: unknown) => unknown} fn
 * @param {unknown} body
 * @param {number} n
 */
function batch(fn, body, n) {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    try {
      sink = fn(body);
    } catch (error) {
      sink = error;
    }
  }
  return performance.now() - t0;
}

/**
 * Warms up each function and sizes its batch, then samples them in interleaved rounds; returns
 * each one's per-call times in µs, sorted.
 * @param {{ fn: (body: unknown) => unknown, body: unknown }[]} subjects
 */
function sampleRounds(subjects) {
  const sizes = subjects.map(({ fn, body }) => {
    let n = 1;
    const start = performance.now();
    while (performance.now() - start < WARMUP_MS) {
      if (batch(fn, body, n) < BATCH_MS) n *= 2;
    }
    return n;
  });
  /** @type {number[][]} */
  const samples = subjects.map(() => []);
  const start = performance.now();
  let rounds = 0;
  while (rounds < MAX_SAMPLES && (rounds < MIN_SAMPLES || performance.now() - start < BUDGET_MS * subjects.length)) {
    for (const [index, { fn, body }] of subjects.entries()) {
      const n = sizes[index] ?? 1;
      samples[index]?.push((batch(fn, body, n) / n) * 1000);
    }
    rounds++;
  }
  return samples.map((list) => list.sort((a, b) => a - b));
}

// The validator as the hub builds it: over the committed document, one per operation.
const documentPath = new URL('../packages/schemas/openapi.json', import.meta.url);
const document = JSON.parse(readFileSync(documentPath, 'utf8'));
const validator = new ContractValidator(document);
const operations = operationsOf(document);
/** @param {string} operationId */
function requestOf(operationId) {
  const operation = operations.find((candidate) => candidate.operationId === operationId);
  check(operation !== undefined, `the document has no operation ${operationId}`);
  const request = validator.request(operation);
  return (/** @type {unknown} */ body) => request.check({ body, params: {}, query: {} });
}
const validateConfiguration = requestOf('validateConfiguration');
const dispatchManualRunB = requestOf('dispatchManualRunB');

// The bodies, built once, as express.json() would hand them over (fresh from JSON.parse).
const json = (/** @type {unknown} */ value) => JSON.parse(JSON.stringify(value));
const config = generateConfiguration(5 * 1024);
const bundleRoot = new URL('../packages/schemas/examples/bundle/', import.meta.url);
const bundleFiles = ['.hub/hub.yml', '.hub/workflows/review.yml', '.hub/workflows/partials/review.md'].map((path) => ({
  path,
  content: readFileSync(new URL(path, bundleRoot), 'utf8'),
}));
const bodies = [
  {
    requirement: 'validate',
    name: 'shape A (5 KB)',
    valid: true,
    body: json({ projectSlug: 'app', yaml: config.text, partials: config.partials }),
  },
  {
    requirement: 'validate',
    name: 'legacy bundle',
    valid: true,
    body: json({ projectSlug: 'app', files: bundleFiles }),
  },
  {
    requirement: 'dispatch',
    name: 'dispatch',
    valid: true,
    body: json({
      projectSlug: 'app',
      trigger: 'review',
      actor: 'alice',
      deliveryKey: 'bench-0001',
      input: 'branch=main Fix the flaky test in the parser.',
    }),
  },
  {
    requirement: 'validate',
    name: 'shape A, invalid',
    valid: false,
    body: json({ projectSlug: 42, yaml: config.text, partials: [{ path: 'testing.md', content: 5 }], extra: true }),
  },
  {
    requirement: 'validate',
    name: 'legacy bundle, invalid',
    valid: false,
    body: json({
      projectSlug: 'app',
      files: [{ path: '.hub/hub.yml' }, ...bundleFiles.slice(1), 'README.md'],
      partials: [],
    }),
  },
  {
    requirement: 'dispatch',
    name: 'dispatch, invalid',
    valid: false,
    body: json({ projectSlug: 'app', trigger: 7, actor: '   ', deliveryKey: '', colour: 'red' }),
  },
].map((entry) => ({
  ...entry,
  bytes: Buffer.byteLength(JSON.stringify(entry.body), 'utf8'),
  reader: entry.requirement === 'dispatch' ? readDispatchBody : readConfigurationBody,
  validator: entry.requirement === 'dispatch' ? dispatchManualRunB : validateConfiguration,
}));

// How each side judges each body, once, before any timing.
for (const entry of bodies) {
  const expected = entry.valid ? 'ok' : 'refused';
  check(outcome(entry.reader, entry.body) === expected, `the reader does not judge "${entry.name}" ${expected}`);
  check(outcome(entry.validator, entry.body) === expected, `the validator does not judge "${entry.name}" ${expected}`);
}

console.log('Request validation benchmark: the document validator against the hand-written readers (commit 5875e52)');
console.log(`node ${process.version}, ${cpus().length} x ${cpus()[0]?.model ?? 'unknown CPU'}`);
console.log(
  `Per body: each function warmed up for ${WARMUP_MS} ms, then timed in interleaved rounds (one batch of about ${BATCH_MS} ms of each per round) ` +
    `for ${BUDGET_MS} ms per function; median per call shown.\n`,
);

const rows = bodies.map((entry) => {
  const [reader, validatorSamples] = sampleRounds([
    { fn: entry.reader, body: entry.body },
    { fn: entry.validator, body: entry.body },
  ]);
  check(reader !== undefined && validatorSamples !== undefined, 'a measurement is missing');
  const readerUs = quantile(reader, 0.5);
  const validatorUs = quantile(validatorSamples, 0.5);
  const iqr = (/** @type {number[]} */ sorted) =>
    ((quantile(sorted, 0.75) - quantile(sorted, 0.25)) / quantile(sorted, 0.5)) * 100;
  return {
    ...entry,
    rounds: reader.length,
    readerUs,
    validatorUs,
    ratio: validatorUs / readerUs,
    readerIqr: iqr(reader),
    validatorIqr: iqr(validatorSamples),
  };
});
void sink;

console.log(
  table(
    [
      ['body', 'bytes', 'rounds', 'reader µs', 'IQR', 'validator µs', 'IQR', 'validator/reader'],
      ...rows.map((row) => [
        row.name,
        row.bytes,
        row.rounds,
        row.readerUs.toFixed(3),
        `${row.readerIqr.toFixed(0)}%`,
        row.validatorUs.toFixed(3),
        `${row.validatorIqr.toFixed(0)}%`,
        `${row.ratio.toFixed(2)}x`,
      ]),
    ],
    ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
  ),
);
console.log('');
for (const requirement of ['validate', 'dispatch']) {
  // Held to the target: the valid bodies (the path every accepted request takes), the worst of them.
  const valid = rows.filter((row) => row.requirement === requirement && row.valid);
  const worst = valid.reduce((a, b) => (b.ratio > a.ratio ? b : a));
  const invalid = rows
    .filter((row) => row.requirement === requirement && !row.valid)
    .map((row) => `${row.ratio.toFixed(2)}x`);
  console.log(
    `${requirement}: validator at ${worst.ratio.toFixed(2)}x the readers (${worst.name}; target <= ${RATIO_TARGET}x: ${worst.ratio <= RATIO_TARGET ? 'met' : 'MISSED'})` +
      `; invalid bodies, for information: ${invalid.join(', ')}`,
  );
}
console.log('');
console.log(
  'reader    = bench/baseline/readers.js (readConfigurationBody, readDispatchBody as at 5875e52), throwing on a bad body.',
);
console.log(
  'validator = new ContractValidator(openapi.json).request(operation).check({ body, params: {}, query: {} }),',
);
console.log(
  '            operation validateConfiguration (validate) or dispatchManualRunB (dispatch), throwing on a bad body.',
);
console.log('IQR = (p75 - p25) / median of the per-call times; a thrown problem is caught inside the timed region.');
