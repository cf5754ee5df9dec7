// @ts-check
/**
 * `pnpm bench:pgbouncer`: issue 29's two PgBouncer figures, in one run on the machine's
 * PostgreSQL and Debian's PgBouncer on deploy/pgbouncer.ini (bench/pgbouncer.js). First dispatch
 * throughput (POST /api/v1/manual-runs under autocannon, as bench:dispatch loads it) on a hub
 * straight to PostgreSQL, then on a hub through PgBouncer (HUB_DATABASE_POOLING=transaction,
 * LISTEN on a direct HUB_LISTEN_DATABASE_URL): the ratio. Then the PostgreSQL connections three
 * hubs hold under a burst of dispatches on all three, direct and through PgBouncer. Bounded
 * (about a minute and a half); prints; never fails on a figure. See bench/README.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { call, expectOk, queuedRun } from './access-hub.js';
import { createDatabase, postgres } from './database.js';
import { startPgBouncer } from './pgbouncer.js';
import { startProcess } from './process.js';
import { check, cleanupOnExit, printProcesses, table } from './report.js';

const CONNECTIONS = 16;
const DURATION_S = 10;
const WARMUP_S = 2;
/** The burst on three hubs at once, CONNECTIONS on each, during which connections are counted. */
const BURST_S = 5;
const root = new URL('..', import.meta.url).pathname;

const startedAt = performance.now();
const adminToken = `hub_admin_bench_${randomBytes(16).toString('hex')}`;
/** @type {[string, import('./process.js').Started][]} */
const processes = [];
const { cleanups, cleanUp, interrupted } = cleanupOnExit([]);

/**
 * A hub on `databaseUrl`, with `env` (the pooling), in a data directory of its own.
 * @param {string} name
 * @param {string} databaseUrl
 * @param {Record<string, string>} [env]
 */
async function startHub(name, databaseUrl, env = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'hub-bench-pgbouncer-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const hub = await startProcess(
    ['packages/server/dist/main.js'],
    {
      PORT: '0',
      HUB_DATA_DIR: dataDir,
      HUB_ADMIN_TOKEN: adminToken,
      HUB_LOG_LEVEL: 'warn',
      HUB_DRAIN_SECONDS: '0',
      DATABASE_URL: databaseUrl,
      ...env,
    },
    { cwd: root },
  );
  processes.push([name, hub]);
  cleanups.push(hub.stop);
  return hub;
}

/**
 * Dispatches with distinct delivery keys on each of `urls` at once, CONNECTIONS each, for
 * `seconds`; req/s summed over them, p50 and p99 of the first.
 * @param {string[]} urls
 * @param {string} token
 * @param {number} seconds
 */
async function dispatchLoad(urls, token, seconds) {
  const tag = randomBytes(4).toString('hex');
  let sent = 0;
  const results = await Promise.all(
    urls.map(
      (url) =>
        /** @type {Promise<any>} */ (
          new Promise((resolve, reject) =>
            autocannon(
              {
                url,
                connections: CONNECTIONS,
                duration: seconds,
                requests: [
                  {
                    method: 'POST',
                    path: '/api/v1/manual-runs',
                    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
                    setupRequest: (req) => ({
                      ...req,
                      body: JSON.stringify({
                        projectSlug: 'app',
                        trigger: 'fix-tests',
                        actor: 'dev-lead',
                        deliveryKey: `load-${tag}-${++sent}`,
                      }),
                    }),
                  },
                ],
              },
              (error, result) => (error ? reject(error) : resolve(result)),
            ),
          )
        ),
    ),
  );
  return {
    rps: results.reduce((sum, result) => sum + result.requests.average, 0),
    p50: results[0].latency.p50,
    p99: results[0].latency.p99,
    failed: results.reduce((sum, result) => sum + result.non2xx + result.errors + result.timeouts, 0),
  };
}

try {
  const database = await createDatabase(cleanups);
  check(database.url !== undefined, `PgBouncer needs the machine's PostgreSQL: ${database.note}`);
  const direct = database.url;
  const name = new URL(direct).pathname.slice(1);
  const bouncer = await startPgBouncer(direct);
  cleanups.push(bouncer.stop);
  const pooledEnv = { HUB_DATABASE_POOLING: 'transaction', HUB_LISTEN_DATABASE_URL: direct };
  const pooledUrl = bouncer.through(direct);
  // The bench's own connection, left out of the counts.
  const observer = postgres(direct, { max: 1, onnotice: () => {} });
  cleanups.push(() => observer.end({ timeout: 5 }));
  const count = async () => {
    const rows = await observer`
      select coalesce(application_name, '') as name, count(*)::int as n from pg_stat_activity
      where datname = current_database() and pid <> pg_backend_pid() group by 1 order by 2 desc, 1`;
    const byName = rows.map((/** @type {any} */ row) => `${row.name || '(none)'} ${row.n}`).join(', ');
    const backends = rows.reduce((/** @type {number} */ sum, /** @type {any} */ row) => sum + row.n, 0);
    const listen = rows.find((/** @type {any} */ row) => row.name === 'hub-listen')?.n ?? 0;
    return { backends, listen, byName };
  };

  // The organization, project, key, daemon and configuration, made through the first hub (which migrates).
  const first = await startHub('hub direct', direct);
  const admin = { token: adminToken };
  expectOk(
    await call(first.url, 'POST', '/api/admin/v1/organizations', { ...admin, json: { slug: 'bench', name: 'Bench' } }),
    'organization',
  );
  expectOk(
    await call(first.url, 'POST', '/api/admin/v1/organizations/bench/projects', {
      ...admin,
      json: { slug: 'app', name: 'App' },
    }),
    'project',
  );
  const key = await call(first.url, 'POST', '/api/admin/v1/organizations/bench/api-keys', {
    ...admin,
    json: {
      name: 'bench',
      scopes: ['projects:read', 'configuration:install', 'daemons:enroll', 'runs:dispatch', 'runs:read'],
    },
  });
  expectOk(key, 'key');
  const token = /** @type {string} */ (key.body.secret);
  // A daemon kept online (its heartbeats on the first hub), so that each dispatch makes an execution.
  const daemon = await queuedRun(first.url, token);
  cleanups.push(daemon.stop);

  // 1. Throughput, one hub at a time: direct, then through PgBouncer.
  const pooledHub = await startHub('hub through PgBouncer', pooledUrl, pooledEnv);
  const throughput = [];
  for (const [label, hub] of /** @type {const} */ ([
    ['direct', first],
    ['through PgBouncer', pooledHub],
  ])) {
    await dispatchLoad([hub.url], token, WARMUP_S);
    throughput.push({ label, ...(await dispatchLoad([hub.url], token, DURATION_S)) });
  }
  await pooledHub.stop();

  // 2. Connections of three hubs under a burst on all three: the peak while it lasts, and after.
  /** @param {string} url @param {Record<string, string>} [env] @param {string} label */
  const connectionsOf = async (label, url, env) => {
    const hubs = [];
    for (let index = 1; index <= 3; index++) hubs.push(await startHub(`${label} ${index}`, url, env));
    let peak = { backends: 0, listen: 0, byName: '', servers: 0 };
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const now = { ...(await count()), servers: env === undefined ? 0 : await bouncer.servers(name) };
        if (now.backends > peak.backends) peak = now;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })();
    const burst = await dispatchLoad(
      hubs.map((hub) => hub.url),
      token,
      BURST_S,
    );
    sampling = false;
    await sampler;
    const after = { ...(await count()), servers: env === undefined ? 0 : await bouncer.servers(name) };
    await Promise.all(hubs.map((hub) => hub.stop()));
    return { label, peak, after, burst };
  };
  await first.stop();
  const connections = [
    await connectionsOf('direct', direct),
    await connectionsOf('through PgBouncer', pooledUrl, pooledEnv),
  ];

  const ratio = /** @type {number} */ (throughput[1]?.rps) / /** @type {number} */ (throughput[0]?.rps);
  console.log(
    `PgBouncer benchmark: ${database.note}; PgBouncer ${bouncer.version()} on deploy/pgbouncer.ini (transaction pooling, default_pool_size 20); node ${process.version}, loopback`,
  );
  console.log('');
  console.log(
    `dispatch throughput, one hub, ${CONNECTIONS} connections, ${DURATION_S} s after ${WARMUP_S} s of warm-up:`,
  );
  console.log(
    table(
      [
        ['hub to PostgreSQL', 'req/s', 'p50 ms', 'p99 ms', 'failed'],
        ...throughput.map((row) => [row.label, row.rps.toFixed(0), row.p50, row.p99, row.failed]),
      ],
      ['l', 'r', 'r', 'r', 'r'],
    ),
  );
  console.log(`ratio, through PgBouncer / direct: ${ratio.toFixed(2)}`);
  console.log('');
  console.log(
    `PostgreSQL connections of three hubs (backends on the bench's database), under ${BURST_S} s of dispatches on all three (${CONNECTIONS} connections each):`,
  );
  console.log(
    table(
      [
        ['three hubs', 'peak', 'after', 'of which PgBouncer', 'of which LISTEN', 'burst req/s', 'failed'],
        ...connections.map((row) => [
          row.label,
          row.peak.backends,
          row.after.backends,
          row.label === 'direct' ? '-' : `${row.peak.servers} / ${row.after.servers}`,
          row.after.listen,
          row.burst.rps.toFixed(0),
          row.burst.failed,
        ]),
      ],
      ['l', 'r', 'r', 'r', 'r', 'r', 'r'],
    ),
  );
  for (const row of connections) console.log(`${row.label}, at the peak, by application_name: ${row.peak.byName}`);
  console.log(`(${((performance.now() - startedAt) / 1000).toFixed(0)} s)`);
} catch (error) {
  if (interrupted()) await new Promise(() => {}); // the SIGINT handler cleans up and exits
  console.error(error);
  printProcesses(processes);
  process.exitCode = 1;
} finally {
  await cleanUp();
}
