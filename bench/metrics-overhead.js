// @ts-check
// What GET /metrics and the counting of each request cost (bench:http's last part): pairs of hubs
// alike but for HUB_METRICS (on and off), each on its own database (a fresh one on the machine's
// PostgreSQL, or its embedded one when that is away), loaded in turns: the
// projects list, then dispatches (distinct delivery keys) to a daemon kept online. Each turn loads
// one hub then the other (on, off, then off, on, …); its ratio compares two neighbouring runs, and
// the median of the turns' ratios is the figure: a slow spell of a shared machine spoils a turn or
// two, not the figure. Beside it, each hub's CPU time per request (from /proc), which other work on
// the machine does not change: off ÷ on is what throughput would be where the hub has the CPU.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { HubClient } from '../packages/daemon/dist/index.js';
import { createDatabase } from './database.js';
import { startProcess } from './process.js';
import { quantile } from './report.js';

/**
 * Rounds, each with a fresh pair of hubs; per round and endpoint, TURNS measured turns, each TURN_S
 * of load on either hub, after WARMUP_S of unmeasured load: 64 turns in about 16 minutes, which
 * resolve the goal's 3 % on a noisy 2-core VM where 8 did not (bench/README.md). A quicker look:
 * METRICS_ROUNDS=4 METRICS_TURNS=2 METRICS_TURN_S=5.
 */
const ROUNDS = Number(process.env.METRICS_ROUNDS ?? 8);
const TURNS = Number(process.env.METRICS_TURNS ?? 8);
const TURN_S = Number(process.env.METRICS_TURN_S ?? 3);
const WARMUP_S = 2;
const HEARTBEAT_MS = 5_000;
const CONFIGURATION = `
environments:
  - { name: box, kind: daemon, daemon: bench-box, cwd: /tmp/bench }
triggers:
  - name: load
    on: { manual.run: {} }
    max_runtime: 1h
    filters: { from_users: [bench-bot] }
    steps:
      - { id: go, environment: box, agent: { provider: claude }, prompt: [ { text: "Benchmark run. {{ prompt }}" } ] }
`;

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
 * A hub with HUB_METRICS=`metrics`: an organization, a project, a key, the daemon `bench-box`
 * (heartbeating, so that dispatches to it are taken), and a configuration with one manual trigger.
 * @param {string} root
 * @param {'on' | 'off'} metrics
 * @param {(() => Promise<unknown> | unknown)[]} cleanups
 */
async function startHub(root, metrics, cleanups) {
  const dataDir = mkdtempSync(join(tmpdir(), `hub-bench-metrics-${metrics}-`));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const database = await createDatabase(cleanups);
  const adminToken = `hub_admin_bench_${randomBytes(16).toString('hex')}`;
  const hub = await startProcess(
    ['packages/server/dist/main.js'],
    {
      PORT: '0',
      HUB_DATA_DIR: dataDir,
      ...(database.url === undefined ? {} : { DATABASE_URL: database.url }),
      HUB_ADMIN_TOKEN: adminToken,
      HUB_LOG_LEVEL: 'warn',
      HUB_METRICS: metrics,
    },
    { cwd: root },
  );
  cleanups.push(hub.stop);
  const admin = { token: adminToken };
  await request(hub.url, 'POST', '/api/admin/v1/organizations', { ...admin, body: { slug: 'bench', name: 'Bench' } });
  await request(hub.url, 'POST', '/api/admin/v1/organizations/bench/projects', {
    ...admin,
    body: { slug: 'app', name: 'App' },
  });
  const key = await request(hub.url, 'POST', '/api/admin/v1/organizations/bench/api-keys', {
    ...admin,
    body: { name: 'bench', scopes: ['projects:read', 'runs:dispatch', 'configuration:install', 'daemons:enroll'] },
  });
  const token = key.secret;
  const enrollment = await request(hub.url, 'POST', '/api/v1/daemons/enrollment-tokens', { token });
  const pair = generateKeyPairSync('ed25519');
  const runtimes = [{ provider: 'claude' }];
  const enrolled = await new HubClient(hub.url).enroll({
    token: enrollment.token,
    name: 'bench-box',
    publicKey: { kty: 'OKP', crv: 'Ed25519', x: /** @type {string} */ (pair.publicKey.export({ format: 'jwk' }).x) },
    runtimes,
  });
  const daemon = new HubClient(hub.url, { daemonId: enrolled.daemonId, privateKey: pair.privateKey });
  await daemon.heartbeat(runtimes);
  const beating = setInterval(() => void daemon.heartbeat(runtimes).catch(() => {}), HEARTBEAT_MS);
  cleanups.push(() => clearInterval(beating));
  await request(hub.url, 'POST', '/api/v1/configurations/install', {
    token,
    body: { projectSlug: 'app', yaml: CONFIGURATION },
  });
  return { url: hub.url, token, pid: hub.child.pid };
}

/** CPU time (user and system) of process `pid` so far, in ms, from /proc (Linux); NaN elsewhere. @param {number | undefined} pid */
function cpuMsOf(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    // utime and stime, in ticks of USER_HZ (100 on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

/**
 * One autocannon run of `duration` s against `url`; each request's body made by `bodyOf` when given.
 * @param {string} url
 * @param {number} connections
 * @param {number} duration
 * @param {{ method: string, path: string, headers: Record<string, string>, bodyOf?: () => string }} endpoint
 * @returns {Promise<any>}
 */
function run(url, connections, duration, endpoint) {
  const { bodyOf, ...rest } = endpoint;
  const requests = [bodyOf === undefined ? rest : { ...rest, setupRequest: (req) => ({ ...req, body: bodyOf() }) }];
  return new Promise((resolve, reject) => {
    autocannon({ url, connections, duration, requests }, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

/** Runs and empties `list` (last added first): a round's hubs, stopped when the round ends. @param {(() => Promise<unknown> | unknown)[]} list */
async function drain(list) {
  while (list.length > 0) await /** @type {() => Promise<unknown> | unknown} */ (list.pop())();
}

/**
 * Requests per second with metrics on and off, for the projects list and for dispatch, over all
 * turns of all rounds, and the median of the turns' on / off ratios; non-2xx answers and errors
 * apart. Each round starts a fresh pair of hubs, in turn on first and off first: a process's own
 * luck (where its code and heap landed, its database's) moves its req/s by a few per cent, as much
 * as the thing measured, and fresh pairs in both orders spread that luck over both sides.
 * @param {{ root: string, connections: number, cleanups: (() => Promise<unknown> | unknown)[] }} options
 */
export async function metricsOverhead({ root, connections, cleanups }) {
  const tag = randomBytes(4).toString('hex');
  let sent = 0;
  /** @param {{ token: string }} hub */
  const endpoints = (hub) => {
    const headers = { authorization: `Bearer ${hub.token}`, 'content-type': 'application/json' };
    return {
      'GET /api/v1/projects': { method: 'GET', path: '/api/v1/projects', headers },
      'POST /api/v1/manual-runs': {
        method: 'POST',
        path: '/api/v1/manual-runs',
        headers,
        bodyOf: () =>
          JSON.stringify({ projectSlug: 'app', trigger: 'load', actor: 'bench-bot', deliveryKey: `${tag}-${++sent}` }),
      },
    };
  };
  const names = /** @type {const} */ (['GET /api/v1/projects', 'POST /api/v1/manual-runs']);
  const empty = () => ({ requests: 0, seconds: 0, failed: 0, cpuMs: 0 });
  const totals = new Map(
    names.map((name) => [name, { on: empty(), off: empty(), ratios: /** @type {number[]} */ ([]) }]),
  );
  for (let round = 0; round < ROUNDS; round++) {
    /** @type {(() => Promise<unknown> | unknown)[]} */
    const local = [];
    cleanups.push(() => drain(local));
    const first = await startHub(root, round % 2 === 0 ? 'on' : 'off', local);
    const second = await startHub(root, round % 2 === 0 ? 'off' : 'on', local);
    const hubs = round % 2 === 0 ? { on: first, off: second } : { on: second, off: first };
    for (const name of names) {
      const total = /** @type {NonNullable<ReturnType<typeof totals.get>>} */ (totals.get(name));
      for (const hub of [first, second]) await run(hub.url, connections, WARMUP_S, endpoints(hub)[name]);
      for (let turn = 0; turn < TURNS; turn++) {
        const rps = { on: 0, off: 0 };
        for (const side of /** @type {const} */ (turn % 2 === 0 ? ['on', 'off'] : ['off', 'on'])) {
          const hub = hubs[side];
          const cpuBefore = cpuMsOf(hub.pid);
          const result = await run(hub.url, connections, TURN_S, endpoints(hub)[name]);
          total[side].cpuMs += cpuMsOf(hub.pid) - cpuBefore;
          total[side].requests += result.requests.total;
          total[side].seconds += result.duration;
          total[side].failed += result.non2xx + result.errors + result.timeouts;
          rps[side] = result.requests.total / result.duration;
        }
        total.ratios.push(rps.on / rps.off);
      }
    }
    await drain(local);
  }
  const rows = names.map((name) => {
    const { on, off, ratios } = /** @type {NonNullable<ReturnType<typeof totals.get>>} */ (totals.get(name));
    ratios.sort((a, b) => a - b);
    return {
      name,
      on: on.requests / on.seconds,
      off: off.requests / off.seconds,
      median: quantile(ratios, 0.5),
      ratios,
      cpuMs: { on: on.cpuMs / on.requests, off: off.cpuMs / off.requests },
      failed: { on: on.failed, off: off.failed },
    };
  });
  return { rows, rounds: ROUNDS, turns: TURNS, turnS: TURN_S, warmupS: WARMUP_S };
}
