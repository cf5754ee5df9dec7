// @ts-check
// What GET /metrics and the counting of each request cost (bench:http's last part): two hubs alike
// but for HUB_METRICS (on and off), each on its own embedded PostgreSQL, loaded in turns: the
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
import { startProcess } from './process.js';
import { quantile } from './report.js';

/** Measured turns per endpoint, each TURN_S of load on either hub, after WARMUP_S of unmeasured load. */
const TURNS = 6;
const TURN_S = 5;
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
  const adminToken = `hub_admin_bench_${randomBytes(16).toString('hex')}`;
  const hub = await startProcess(
    ['packages/server/dist/main.js'],
    { PORT: '0', HUB_DATA_DIR: dataDir, HUB_ADMIN_TOKEN: adminToken, HUB_LOG_LEVEL: 'warn', HUB_METRICS: metrics },
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

/**
 * Requests per second with metrics on and off, for the projects list and for dispatch, over all
 * TURNS turns, and the median of the turns' on / off ratios; non-2xx answers and errors apart.
 * @param {{ root: string, connections: number, cleanups: (() => Promise<unknown> | unknown)[] }} options
 */
export async function metricsOverhead({ root, connections, cleanups }) {
  const on = await startHub(root, 'on', cleanups);
  const off = await startHub(root, 'off', cleanups);
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
  const rows = [];
  for (const name of /** @type {const} */ (['GET /api/v1/projects', 'POST /api/v1/manual-runs'])) {
    const totals = new Map([
      [on, { requests: 0, seconds: 0, failed: 0, cpuMs: 0 }],
      [off, { requests: 0, seconds: 0, failed: 0, cpuMs: 0 }],
    ]);
    for (const hub of [on, off]) await run(hub.url, connections, WARMUP_S, endpoints(hub)[name]);
    const ratios = [];
    for (let turn = 0; turn < TURNS; turn++) {
      const rps = new Map();
      for (const hub of turn % 2 === 0 ? [on, off] : [off, on]) {
        const cpuBefore = cpuMsOf(hub.pid);
        const result = await run(hub.url, connections, TURN_S, endpoints(hub)[name]);
        const total = /** @type {{ requests: number, seconds: number, failed: number, cpuMs: number }} */ (
          totals.get(hub)
        );
        total.cpuMs += cpuMsOf(hub.pid) - cpuBefore;
        total.requests += result.requests.total;
        total.seconds += result.duration;
        total.failed += result.non2xx + result.errors + result.timeouts;
        rps.set(hub, result.requests.total / result.duration);
      }
      ratios.push(rps.get(on) / rps.get(off));
    }
    ratios.sort((a, b) => a - b);
    const rps = (/** @type {typeof on} */ hub) => {
      const total = /** @type {{ requests: number, seconds: number }} */ (totals.get(hub));
      return total.requests / total.seconds;
    };
    const failed = (/** @type {typeof on} */ hub) => totals.get(hub)?.failed ?? 0;
    const cpu = (/** @type {typeof on} */ hub) => {
      const total = /** @type {{ requests: number, cpuMs: number }} */ (totals.get(hub));
      return total.cpuMs / total.requests;
    };
    const median = quantile(ratios, 0.5);
    rows.push({
      name,
      on: rps(on),
      off: rps(off),
      median,
      ratios,
      cpuMs: { on: cpu(on), off: cpu(off) },
      failed: { on: failed(on), off: failed(off) },
    });
  }
  return { rows, turns: TURNS, turnS: TURN_S, warmupS: WARMUP_S };
}
