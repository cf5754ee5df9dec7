// @ts-check
/**
 * `pnpm bench:http`: the hub under load on loopback, against a bare Express app returning the
 * same JSON (the baseline) measured in the same run, the hub's memory idle after start and after a
 * burst of large installs, and then what metrics cost (fresh pairs of hubs, HUB_METRICS on and off,
 * in alternating turns: bench/metrics-overhead.js). Bounded: five 10-second runs, each after 2 s of
 * unmeasured warm-up, then 16 turns of 5 s on each side. Prints; never fails on a missed target. See
 * bench/README.md.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { generateConfiguration } from './generate.js';
import { metricsOverhead } from './metrics-overhead.js';
import { startProcess } from './process.js';
import { cleanupOnExit, quantile } from './report.js';

const CONNECTIONS = 32;
const DURATION_S = 10;
const WARMUP_S = 2;
const root = new URL('..', import.meta.url).pathname;
/** How long the hub is left alone after it listens before its idle RSS is read. */
const QUIET_AFTER_START_MS = 2_000;
const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * @param {string} url
 * @param {string} method
 * @param {string} path
 * @param {{ token?: string, body?: unknown }} [options]
 */
async function request(url, method, path, options = {}) {
  /** @type {Record<string, string>} */
  const headers = { 'content-type': 'application/json' };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const response = await fetch(url + path, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return JSON.parse(text);
}

/**
 * @param {string} url
 * @param {{ method?: string, headers?: Record<string, string>, body?: string }} options
 */
function load(url, options) {
  const run = (/** @type {number} */ duration) =>
    new Promise((resolve, reject) => {
      autocannon({ url, connections: CONNECTIONS, duration, ...options }, (error, result) =>
        error ? reject(error) : resolve(result),
      );
    });
  // Two seconds of the same load first, unmeasured, for hub and baseline alike: the figures are
  // of warm code, not of the JIT compiling it.
  return run(WARMUP_S).then(() => run(DURATION_S));
}

/** @param {any} result */
function summary(result) {
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

const dataDir = mkdtempSync(join(tmpdir(), 'hub-bench-'));
const adminToken = 'hub_admin_bench_0123456789abcdef';
const { cleanups, cleanUp, interrupted } = cleanupOnExit([() => rmSync(dataDir, { recursive: true, force: true })]);
try {
  const hub = await startProcess(
    ['packages/server/dist/main.js'],
    { PORT: '0', HUB_DATA_DIR: dataDir, HUB_ADMIN_TOKEN: adminToken, HUB_LOG_LEVEL: 'warn' },
    { cwd: root },
  );
  cleanups.push(hub.stop);
  /** The hub's resident memory (VmRSS), in MB. */
  const rssNow = () =>
    Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${hub.child.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  // Idle after start: two quiet seconds after it said it listens, before any request.
  await sleep(QUIET_AFTER_START_MS);
  const rssIdle = rssNow();

  // An organization, a project, a key, and the daemon the configuration names.
  const admin = { token: adminToken };
  await request(hub.url, 'POST', '/api/admin/v1/organizations', { ...admin, body: { slug: 'bench', name: 'Bench' } });
  await request(hub.url, 'POST', '/api/admin/v1/organizations/bench/projects', {
    ...admin,
    body: { slug: 'app', name: 'App' },
  });
  const key = await request(hub.url, 'POST', '/api/admin/v1/organizations/bench/api-keys', {
    ...admin,
    body: {
      name: 'bench',
      scopes: ['projects:read', 'configuration:validate', 'configuration:install', 'daemons:enroll'],
    },
  });
  const token = key.secret;
  const small = generateConfiguration(5 * 1024);
  const large = generateConfiguration(1_000_000);
  const daemons = new Set([...`${small.text}\n${large.text}`.matchAll(/daemon: (\S+)/g)].map((match) => match[1]));
  for (const name of daemons) {
    const enrollment = await request(hub.url, 'POST', '/api/v1/daemons/enrollment-tokens', { token });
    const x = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x;
    await request(hub.url, 'POST', '/api/v1/daemons/enroll', {
      body: {
        token: enrollment.token,
        name,
        publicKey: { kty: 'OKP', crv: 'Ed25519', x },
        runtimes: [{ provider: 'claude' }, { provider: 'codex' }],
      },
    });
  }
  const smallBody = JSON.stringify({ projectSlug: 'app', yaml: small.text, partials: small.partials });
  const largeBody = { projectSlug: 'app', yaml: large.text, partials: large.partials };
  await request(hub.url, 'POST', '/api/v1/configurations/validate', { token, body: JSON.parse(smallBody) });
  const projects = await request(hub.url, 'GET', '/api/v1/projects', { token });
  const baseline = await startProcess(
    ['bench/http-baseline.js'],
    { BASELINE_PROJECTS: JSON.stringify(projects) },
    { cwd: root },
  );
  cleanups.push(baseline.stop);

  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const validate = { method: 'POST', headers: auth, body: smallBody };
  /** @type {[string, string, any][]} */
  const rows = [
    ['GET /api/v1/projects', 'hub', summary(await load(`${hub.url}/api/v1/projects`, { headers: auth }))],
    ['GET /api/v1/projects', 'baseline', summary(await load(`${baseline.url}/api/v1/projects`, { headers: auth }))],
    ['POST validate (5 KB)', 'hub', summary(await load(`${hub.url}/api/v1/configurations/validate`, validate))],
    [
      'POST validate (5 KB)',
      'baseline',
      summary(await load(`${baseline.url}/api/v1/configurations/validate`, validate)),
    ],
  ];

  // Small validates while a client installs 1,000,000-character configurations back to back.
  let installing = true;
  let installs = 0;
  const installer = (async () => {
    while (installing) {
      await request(hub.url, 'POST', '/api/v1/configurations/install', { token, body: largeBody });
      installs++;
    }
  })();
  const underLoad = summary(await load(`${hub.url}/api/v1/configurations/validate`, validate));
  installing = false;
  await installer;
  rows.push([`POST validate (5 KB), ${installs} 1 MB installs meanwhile`, 'hub', underLoad]);
  // RSS when the burst ends, and five quiet seconds later: the hub ends idle compile workers and
  // collects what large compiles left behind once it has been quiet for two.
  const rssLoaded = rssNow();
  await sleep(5_000);
  const rss = rssNow();

  console.log(
    `Hub HTTP benchmark: ${CONNECTIONS} connections, ${DURATION_S} s each after ${WARMUP_S} s of warm-up, loopback, node ${process.version}`,
  );
  console.log('');
  console.log('endpoint                                         server    req/s   p50 ms  p99 ms  non-2xx');
  for (const [name, who, r] of rows) {
    console.log(
      `${String(name).padEnd(48)} ${String(who).padEnd(8)} ${r.rps.toFixed(0).padStart(7)} ${String(r.p50).padStart(8)} ${String(r.p99).padStart(7)} ${String(r.non2xx + r.errors).padStart(8)}`,
    );
  }
  const [listHub, listBase, smallHub] = rows.map((row) => /** @type {any} */ (row[2]));
  const listRatio = listHub.rps / listBase.rps;
  const loadRatio = underLoad.p99 / Math.max(smallHub.p99, 1);
  const verdict = (/** @type {boolean} */ met) => (met ? 'met' : 'MISSED');
  console.log('');
  console.log(
    `projects list: ${(listRatio * 100).toFixed(0)}% of the baseline's req/s (target >= 40%: ${verdict(listRatio >= 0.4)}), p99 ${listHub.p99} ms (target < 25 ms: ${verdict(listHub.p99 < 25)})`,
  );
  console.log(`small validate: ${((smallHub.rps / rows[3][2].rps) * 100).toFixed(0)}% of the baseline's req/s`);
  console.log('');
  console.log('issue 15                                                 measured   target');
  const line = (
    /** @type {string} */ what,
    /** @type {string} */ measured,
    /** @type {string} */ target,
    /** @type {boolean} */ met,
  ) => console.log(`${what.padEnd(56)} ${measured.padStart(8)}   ${target.padEnd(8)} ${verdict(met)}`);
  line(
    `small validate p99 under 1 MB installs / idle (${underLoad.p99} / ${smallHub.p99} ms)`,
    `${loadRatio.toFixed(2)}x`,
    '< 1.3x',
    loadRatio < 1.3,
  );
  line('hub RSS idle after start', `${rssIdle.toFixed(0)} MB`, '<= 100 MB', rssIdle <= 100);
  line(
    `hub RSS 5 s after the installs end (${rssLoaded.toFixed(0)} MB as they ended)`,
    `${rss.toFixed(0)} MB`,
    '<= 150 MB',
    rss <= 150,
  );
  line('  the same, over idle after start', `+${(rss - rssIdle).toFixed(0)} MB`, '<= +40 MB', rss - rssIdle <= 40);

  // Metrics on / off, with the hub and the baseline above stopped: only the two compared run.
  await hub.stop();
  await baseline.stop();
  const overhead = await metricsOverhead({ root, connections: CONNECTIONS, cleanups });
  console.log('');
  console.log(
    `metrics on / off: ${overhead.rounds} rounds, each with a fresh pair of hubs (HUB_METRICS=on, off; started on first, then off first), ${overhead.turns} turns of ${overhead.turnS} s on each per endpoint, alternating, after ${overhead.warmupS} s of warm-up; on / off is the median of the turns' ratios`,
  );
  console.log(
    'endpoint                     on req/s  off req/s  on / off   target   non-2xx (on, off)  turns: lowest, quartiles, highest',
  );
  for (const row of overhead.rows) {
    console.log(
      `${row.name.padEnd(28)} ${row.on.toFixed(0).padStart(8)} ${row.off.toFixed(0).padStart(10)} ${row.median.toFixed(3).padStart(9)}   >= 0.97  ${verdict(row.median >= 0.97).padEnd(6)}  ${`${row.failed.on}, ${row.failed.off}`.padEnd(17)}  ${[0, 0.25, 0.75, 1].map((q) => quantile(row.ratios, q).toFixed(2)).join(' ')}`,
    );
  }
  console.log('');
  console.log(
    "hub CPU per request (all turns; other work on the machine does not change it), off / on as the hub's own cost",
  );
  console.log('endpoint                     on ms/req  off ms/req  off / on   target');
  for (const row of overhead.rows) {
    const ratio = row.cpuMs.off / row.cpuMs.on;
    console.log(
      `${row.name.padEnd(28)} ${row.cpuMs.on.toFixed(3).padStart(9)} ${row.cpuMs.off.toFixed(3).padStart(11)} ${ratio.toFixed(3).padStart(9)}   >= 0.97  ${verdict(ratio >= 0.97)}`,
    );
  }
} finally {
  await cleanUp();
}
if (interrupted()) await new Promise(() => {}); // Ctrl-C: its handler exits once cleaned up
