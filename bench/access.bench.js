// @ts-check
/**
 * `pnpm bench:access`: what "access ends when a person leaves" (issue 24) costs. One hub on a
 * database of its own on the machine's PostgreSQL, set up through its front doors (setup link,
 * `hub login`'s device grant approved in the dashboard, a daemon and a queued run). In the same run:
 *  A. authenticated reads with a CLI credential (whose key check also tests its expiry) against
 *     the same reads with an organization API key (the baseline);
 *  B. those reads while STREAMS output streams are open, each re-checking its credential every
 *     5 s (the default) and, on a second hub, every 1 s, against no stream open (the baseline);
 *  C. how long after its credential is revoked a stream ends, against the re-check interval.
 * Bounded (about two minutes); prints; never fails on a missed target. See bench/README.md.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { call, cliCredential, expectOk, openStream, queuedRun, setUp } from './access-hub.js';
import { createDatabase } from './database.js';
import { startProcess } from './process.js';
import { check, cleanupOnExit, quantile, table } from './report.js';

const CONNECTIONS = 16;
const DURATION_S = Number(process.env.HUB_BENCH_ACCESS_DURATION_S || 6);
const WARMUP_S = 1;
const ROUNDS = 3;
const STREAMS = Number(process.env.HUB_BENCH_ACCESS_STREAMS || 500);
const ENDINGS = 20;
const root = new URL('..', import.meta.url).pathname;
const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (/** @type {number[]} */ values) =>
  quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  );

/**
 * Requests per second and latency of GET /api/v1/credential with `token`, after a warm-up.
 * @param {string} url
 * @param {string} token
 */
async function reads(url, token) {
  const run = (/** @type {number} */ duration) =>
    /** @type {Promise<any>} */ (
      new Promise((resolve, reject) =>
        autocannon(
          {
            url: `${url}/api/v1/credential`,
            connections: CONNECTIONS,
            duration,
            headers: { authorization: `Bearer ${token}` },
          },
          (error, result) => (error ? reject(error) : resolve(result)),
        ),
      )
    );
  await run(WARMUP_S);
  const result = await run(DURATION_S);
  check(result.non2xx === 0 && result.errors === 0, `reads answered ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
}

const dataDirs = [mkdtempSync(join(tmpdir(), 'hub-bench-access-')), mkdtempSync(join(tmpdir(), 'hub-bench-access-'))];
const adminToken = `hub_admin_bench_${randomBytes(12).toString('hex')}`;
const { cleanups, cleanUp, interrupted } = cleanupOnExit(
  dataDirs.map((dir) => () => rmSync(dir, { recursive: true, force: true })),
);
try {
  const database = await createDatabase(cleanups);
  check(database.url !== undefined, `this benchmark needs the machine's PostgreSQL: ${database.note}`);
  /** @param {number} index @param {string} recheckMs */
  const hubWith = async (index, recheckMs) => {
    const hub = await startProcess(
      ['packages/server/dist/main.js'],
      {
        PORT: '0',
        HUB_DATA_DIR: /** @type {string} */ (dataDirs[index]),
        HUB_ADMIN_TOKEN: adminToken,
        HUB_LOG_LEVEL: 'warn',
        DATABASE_URL: /** @type {string} */ (database.url),
        HUB_STREAM_RECHECK_MS: recheckMs,
        HUB_THROTTLE_DEVICE_ADDRESS: '1000000/1',
        HUB_THROTTLE_AUTH_ADDRESS: '1000000/1',
      },
      { cwd: root },
    );
    cleanups.push(hub.stop);
    return hub;
  };
  const hub = await hubWith(0, '5000');
  const setup = await setUp(hub.url, adminToken, hub.output(), database.url);
  const stressed = await hubWith(1, '1000');
  const { path, stop } = await queuedRun(hub.url, setup.key);
  cleanups.push(stop);
  const cli = await cliCredential(hub.url, setup.cookie, setup.organizationId);
  console.log(`bench:access — ${database.note}; ${CONNECTIONS} connections, ${DURATION_S} s a round\n`);

  // A. The key check with the expiry conditions (CLI credential) against an API key's, interleaved.
  /** @type {{ cli: number[], key: number[] }} */
  const rounds = { cli: [], key: [] };
  const latency = { cli: { p50: 0, p99: 0 }, key: { p50: 0, p99: 0 } };
  for (let round = 0; round < ROUNDS; round++) {
    for (const [kind, token] of /** @type {const} */ ([
      ['key', setup.key],
      ['cli', cli],
    ])) {
      const result = await reads(hub.url, token);
      rounds[kind].push(result.rps);
      latency[kind] = { p50: result.p50, p99: result.p99 };
    }
  }
  const cliRps = median(rounds.cli);
  const keyRps = median(rounds.key);
  console.log('A. GET /api/v1/credential: CLI credential (expiry checked) against an API key (baseline)');
  console.log(
    table(
      [
        ['credential', 'req/s (median)', 'p50 ms', 'p99 ms'],
        ['API key (baseline)', keyRps.toFixed(0), latency.key.p50, latency.key.p99],
        ['CLI credential', cliRps.toFixed(0), latency.cli.p50, latency.cli.p99],
      ],
      ['l', 'r', 'r', 'r'],
    ),
  );
  console.log(`ratio CLI / API key: ${(cliRps / keyRps).toFixed(2)}× (target ≥ 0.9×)\n`);

  // B. The same reads with STREAMS streams open, each re-checking its credential.
  const credentials = [
    cli,
    ...(await Promise.all(Array.from({ length: 3 }, () => cliCredential(hub.url, setup.cookie, setup.organizationId)))),
  ];
  /** @param {{ url: string }} on */
  const withStreams = async (on) => {
    const baseline = await reads(on.url, setup.key);
    const streams = [];
    for (let i = 0; i < STREAMS; i++)
      streams.push(await openStream(on.url, path, /** @type {string} */ (credentials[i % credentials.length])));
    check(
      streams.every((stream) => stream.status === 200),
      'a stream was refused',
    );
    await sleep(1_000);
    const loaded = await reads(on.url, setup.key);
    check(!streams.some((stream) => stream.ended()), 'a stream ended while the reads were measured');
    for (const stream of streams) stream.close();
    await sleep(500);
    return { baseline, loaded };
  };
  const five = await withStreams(hub);
  const one = await withStreams(stressed);
  console.log(`B. GET /api/v1/credential with ${STREAMS} output streams open, against none (baseline, same hub)`);
  console.log(
    table(
      [
        ['re-check every', 'req/s, no stream', `req/s, ${STREAMS} streams`, 'ratio', 'p99 ms no / with'],
        [
          '5 s (default)',
          five.baseline.rps.toFixed(0),
          five.loaded.rps.toFixed(0),
          `${(five.loaded.rps / five.baseline.rps).toFixed(2)}×`,
          `${five.baseline.p99} / ${five.loaded.p99}`,
        ],
        [
          '1 s (stress)',
          one.baseline.rps.toFixed(0),
          one.loaded.rps.toFixed(0),
          `${(one.loaded.rps / one.baseline.rps).toFixed(2)}×`,
          `${one.baseline.p99} / ${one.loaded.p99}`,
        ],
      ],
      ['l', 'r', 'r', 'r', 'r'],
    ),
  );
  console.log('(target ≥ 0.9× at the default)\n');

  // C. Revocation to `event: end`, each stream on a credential of its own, revoked at a random moment.
  const endings = [];
  for (let i = 0; i < ENDINGS; i++) {
    const token = await cliCredential(hub.url, setup.cookie, setup.organizationId);
    const stream = await openStream(hub.url, path, token);
    check(stream.status === 200, 'a stream was refused');
    endings.push({ token, stream });
  }
  const delays = await Promise.all(
    endings.map(async ({ token, stream }) => {
      await sleep(Math.random() * 5_000);
      const revokedAt = performance.now();
      expectOk(await call(hub.url, 'POST', '/oauth/revoke', { form: { token, client_id: 'hub-cli' } }), 'revoke');
      const endedAt = await Promise.race([stream.endedAt, sleep(30_000).then(() => Number.NaN)]);
      stream.close();
      return endedAt - revokedAt;
    }),
  );
  const sorted = delays.filter(Number.isFinite).sort((a, b) => a - b);
  console.log(`C. Revocation to the stream's event: end (${ENDINGS} streams, re-check every 5 s)`);
  console.log(
    table(
      [
        ['ended', 'p50 ms', 'p99 ms', 'max ms', 'bound (re-check) ms'],
        [
          `${sorted.length}/${ENDINGS}`,
          quantile(sorted, 0.5).toFixed(0),
          quantile(sorted, 0.99).toFixed(0),
          (sorted.at(-1) ?? Number.NaN).toFixed(0),
          5000,
        ],
      ],
      ['l', 'r', 'r', 'r', 'r'],
    ),
  );
} finally {
  await cleanUp();
}
if (interrupted()) await new Promise(() => {}); // Ctrl-C: its handler exits once cleaned up
