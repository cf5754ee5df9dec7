// @ts-check
/**
 * `pnpm bench:dispatch`: manual-run dispatch under load on loopback against a bare Express app
 * doing one INSERT on the same database (the baseline, measured in the same run), and the time
 * from a dispatch to its daemon's long-poll answering, on one hub instance and across two on one
 * PostgreSQL. Bounded (about a minute); prints; never fails on a missed target. See
 * bench/README.md.
 */
import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { createDatabase, postgres } from './database.js';
import { startProcess as startChild } from './process.js';
import { cleanupOnExit, printProcesses } from './report.js';

/** The target: the hub's dispatches per second at least this share of the baseline's (issue 15). */
const TARGET_RATIO = 0.7;
const CONNECTIONS = 16;
const DURATION_S = 10;
const WARMUP_S = 2;
/** Sequential dispatches per latency row, after LATENCY_WARMUP unmeasured ones. */
const LATENCY_N = 200;
const LATENCY_WARMUP = 20;
/**
 * How long a long-poll is given to reach its wait before the dispatch is sent; 0 sends both at
 * once (HUB_BENCH_POLL_SETTLE_MS), which also times dispatches that race the poll's own claim.
 */
const POLL_SETTLE_MS = Number(process.env.HUB_BENCH_POLL_SETTLE_MS || 25);
const HEARTBEAT_MS = 5_000;
/** A directory: hub 1 then runs with --cpu-prof and writes its profile there when stopped. */
const CPU_PROF_DIR = process.env.HUB_BENCH_CPU_PROF;

/** This checkout, where the baseline runs; the hub runs from HUB_BENCH_ROOT (another checkout, built) when set, for a before/after. */
const root = new URL('..', import.meta.url).pathname;
const hubRoot = process.env.HUB_BENCH_ROOT ?? root;
/**
 * HUB_BENCH_ANALYZE=1: ANALYZE the database once the setup is done, while the run tables are
 * empty, as a PostgreSQL without autovacuum may have it; the load then fills them.
 */
const ANALYZE_EMPTY = process.env.HUB_BENCH_ANALYZE === '1';

const CONFIGURATION = `
environments:
  - { name: load, kind: daemon, daemon: load-box, cwd: /tmp/bench }
  - { name: latency, kind: daemon, daemon: latency-box, cwd: /tmp/bench }
triggers:
  - name: load
    on: { manual.run: {} }
    max_runtime: 1h
    filters: { from_users: [bench-bot] }
    steps:
      - { id: go, environment: load, agent: { provider: claude, mode: edit }, prompt: [ { text: "Benchmark run. {{ prompt }}" } ] }
  - name: ping
    on: { manual.run: {} }
    max_runtime: 1h
    filters: { from_users: [bench-bot] }
    steps:
      - { id: go, environment: latency, agent: { provider: claude }, prompt: [ { text: "Ping. {{ prompt }}" } ] }
`;

/** @typedef {{ child: import('node:child_process').ChildProcess, url: string, output: () => string, stop: () => Promise<void> }} Started */

/** What the bench started, for their output if it fails. @type {[string, Started][]} */
const processes = [];

/**
 * Starts a node process in the checkout (bench/process.js), kept for the report and the cleanup.
 * @param {string[]} args
 * @param {Record<string, string>} env
 * @param {string} [cwd]
 */
async function startProcess(args, env, cwd = root) {
  const started = await startChild(args, env, { cwd });
  processes.push([args.join(' '), started]);
  return started;
}

/**
 * One HTTP request; repeated once after a network failure (such as a keep-alive connection the
 * server closed just then): every request here may be repeated, a dispatch by its delivery key,
 * and a signed request is signed anew (`headers` as a function, called for each attempt).
 * @param {string} url
 * @param {string} method
 * @param {string} path
 * @param {{ token?: string, body?: unknown, headers?: Record<string, string> | (() => Record<string, string>), raw?: string }} [options]
 * @returns {Promise<{ status: number, body: any, text: string }>}
 */
async function call(url, method, path, options = {}) {
  const body = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  for (let attempt = 1; ; attempt++) {
    /** @type {Record<string, string>} */
    const headers = { ...(typeof options.headers === 'function' ? options.headers() : options.headers) };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let status;
    let text;
    try {
      const response = await fetch(url + path, { method, headers, body });
      status = response.status;
      text = await response.text();
    } catch (error) {
      if (attempt > 1 || !(error instanceof TypeError))
        throw new Error(`${method} ${url}${path}: ${error instanceof Error ? error.message : String(error)}`, {
          cause: error,
        });
      await sleep(50);
      continue;
    }
    return { status, body: text === '' ? undefined : JSON.parse(text), text };
  }
}

/** Like `call`, but anything other than a 2xx is an error. @param {Parameters<typeof call>} args */
async function request(...args) {
  const answer = await call(...args);
  if (answer.status >= 300) throw new Error(`${args[1]} ${args[2]}: ${answer.status} ${answer.text}`);
  return answer.body;
}

/** A daemon as DECISIONS.md describes it: its own Ed25519 key, every request signed. */
class Daemon {
  /**
   * @param {string} id
   * @param {string} name
   * @param {import('node:crypto').KeyObject} privateKey
   */
  constructor(id, name, privateKey) {
    this.id = id;
    this.name = name;
    this.privateKey = privateKey;
  }

  /** Issues an enrollment token with the API key `token`, and enrolls under `name` with a new key pair. @param {string} url @param {string} token @param {string} name */
  static async enroll(url, token, name) {
    const enrollment = await request(url, 'POST', '/api/v1/daemons/enrollment-tokens', { token });
    const pair = generateKeyPairSync('ed25519');
    const x = pair.publicKey.export({ format: 'jwk' }).x;
    const enrolled = await request(url, 'POST', '/api/v1/daemons/enroll', {
      body: {
        token: enrollment.token,
        name,
        publicKey: { kty: 'OKP', crv: 'Ed25519', x },
        runtimes: [{ provider: 'claude' }],
      },
    });
    return new Daemon(enrolled.daemonId, name, pair.privateKey);
  }

  /**
   * A signed request: METHOD\nPATH_WITH_QUERY\nTIMESTAMP\nNONCE\nBASE64URL(SHA-256(BODY)).
   * @param {string} url
   * @param {string} method
   * @param {string} pathWithQuery
   * @param {unknown} [body]
   */
  signed(url, method, pathWithQuery, body) {
    const raw = body === undefined ? '' : JSON.stringify(body);
    const digest = createHash('sha256').update(raw).digest('base64url');
    const headers = () => {
      const timestamp = String(Date.now());
      const nonce = randomBytes(18).toString('base64url');
      const signature = sign(
        null,
        Buffer.from(`${method}\n${pathWithQuery}\n${timestamp}\n${nonce}\n${digest}`),
        this.privateKey,
      ).toString('base64url');
      return { 'hub-daemon': this.id, 'hub-timestamp': timestamp, 'hub-nonce': nonce, 'hub-signature': signature };
    };
    return call(url, method, pathWithQuery, body === undefined ? { headers } : { headers, raw });
  }

  /** @param {string} url */
  async heartbeat(url) {
    const answer = await this.signed(url, 'POST', '/api/v1/daemon/heartbeat', {});
    if (answer.status !== 200) throw new Error(`heartbeat of ${this.name}: ${answer.status} ${answer.text}`);
  }

  /** @param {string} url @param {string} executionId @param {string} status */
  async report(url, executionId, status) {
    const answer = await this.signed(
      url,
      'POST',
      `/api/v1/daemon/executions/${executionId}/status`,
      status === 'running' ? { status } : { status, exitCode: 0 },
    );
    if (answer.status !== 200) throw new Error(`report ${status} on ${executionId}: ${answer.status} ${answer.text}`);
  }
}

/**
 * autocannon with distinct delivery keys: 2 s of the same load first, unmeasured (hub and
 * baseline alike), then the measured run.
 * @param {string} url
 * @param {(deliveryKey: string) => string} bodyOf
 * @param {Record<string, string>} headers
 * @param {() => Promise<{ serverMs: number | undefined, databaseMs: number | undefined, wal: number }>} sample the CPU and WAL, sampled around the measured run
 */
async function load(url, bodyOf, headers, sample) {
  const tag = randomBytes(4).toString('hex');
  let sent = 0;
  const run = (/** @type {number} */ duration) =>
    new Promise((resolve, reject) => {
      autocannon(
        {
          url,
          connections: CONNECTIONS,
          duration,
          requests: [
            {
              method: 'POST',
              path: '/api/v1/manual-runs',
              headers,
              setupRequest: (req) => ({ ...req, body: bodyOf(`load-${tag}-${++sent}`) }),
            },
          ],
        },
        (error, result) => (error ? reject(error) : resolve(result)),
      );
    });
  await run(WARMUP_S);
  const before = await sample();
  const result = /** @type {any} */ (await run(DURATION_S));
  const after = await sample();
  const requests = result.requests.total;
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx + result.errors + result.timeouts,
    // Per request: the server's CPU, the database's (its backends for the server's connections), WAL bytes (the whole database server's).
    serverCpuMs:
      before.serverMs === undefined || after.serverMs === undefined
        ? undefined
        : (after.serverMs - before.serverMs) / requests,
    dbCpuMs:
      before.databaseMs === undefined || after.databaseMs === undefined
        ? undefined
        : (after.databaseMs - before.databaseMs) / requests,
    walBytes: (after.wal - before.wal) / requests,
  };
}

/** CPU time of process `pid` so far, in ms, from /proc (Linux); undefined elsewhere. @param {number | undefined} pid */
function cpuMsOf(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    // utime and stime, in ticks of USER_HZ (100 on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/**
 * The server's CPU time (process `pid`), its PostgreSQL backends' (the connections named
 * `names`, a local server only) and the WAL position, sampled before and after a load: the work
 * per request on either side.
 * @param {any} sql
 * @param {number | undefined} pid
 * @param {string[]} names
 */
async function usage(sql, pid, names) {
  const rows =
    await sql`select pid from pg_stat_activity where datname = current_database() and application_name = any (${names})`;
  const [{ wal }] = await sql`select pg_current_wal_lsn() - '0/0' as wal`;
  let databaseMs = 0;
  for (const row of rows) {
    const ms = cpuMsOf(row.pid);
    databaseMs = ms === undefined || databaseMs === undefined ? undefined : databaseMs + ms;
  }
  return { serverMs: cpuMsOf(pid), databaseMs, wal: Number(wal) };
}

/** @param {number[]} sorted @param {number} q */
const percentile = (sorted, q) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));

const startedAt = performance.now();
const dirs = [mkdtempSync(join(tmpdir(), 'hub-bench-dispatch-')), mkdtempSync(join(tmpdir(), 'hub-bench-dispatch-'))];
const adminToken = `hub_admin_bench_${randomBytes(16).toString('hex')}`;
/** What the bench started, cleaned up at the end or on Ctrl-C. */
const { cleanups, cleanUp, interrupted } = cleanupOnExit([
  () => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })),
]);

try {
  // A fresh database on the machine's PostgreSQL, which a second hub instance can share; without
  // one, the embedded PostgreSQL of one hub, and no cross-instance row.
  const database = await createDatabase(cleanups);
  let databaseUrl = database.url;
  const databaseNote = database.note;
  const external = database.url !== undefined;

  /** @param {string} dataDir @param {string[]} [nodeOptions] */
  const startHub = async (dataDir, nodeOptions = []) => {
    const hub = await startProcess(
      [...nodeOptions, 'packages/server/dist/main.js'],
      {
        PORT: '0',
        HUB_DATA_DIR: dataDir,
        HUB_ADMIN_TOKEN: adminToken,
        HUB_LOG_LEVEL: 'warn',
        ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }),
      },
      hubRoot,
    );
    cleanups.push(hub.stop);
    return hub;
  };
  const hub = await startHub(
    /** @type {string} */ (dirs[0]),
    CPU_PROF_DIR === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF_DIR}`],
  );
  databaseUrl ??= readFileSync(join(/** @type {string} */ (dirs[0]), 'database-url'), 'utf8').trim();
  // The database's CPU and WAL per request (`usage`), and ANALYZE.
  const observer = postgres(databaseUrl, {
    max: 1,
    onnotice: () => {},
    connection: { application_name: 'hub-bench-observer' },
  });
  cleanups.push(() => observer.end({ timeout: 5 }));

  // An organization, a project, a key, two daemons (one takes the load, one the timed
  // assignments: the load's executions pile up as spawning and would come first in its queue),
  // and the configuration whose triggers name them.
  const admin = { token: adminToken };
  const organization = await request(hub.url, 'POST', '/api/admin/v1/organizations', {
    ...admin,
    body: { slug: 'bench', name: 'Bench' },
  });
  await request(hub.url, 'POST', '/api/admin/v1/organizations/bench/projects', {
    ...admin,
    body: { slug: 'app', name: 'App' },
  });
  const key = await request(hub.url, 'POST', '/api/admin/v1/organizations/bench/api-keys', {
    ...admin,
    body: {
      name: 'bench',
      scopes: ['runs:dispatch', 'configuration:install', 'daemons:enroll', 'projects:read', 'runs:read'],
    },
  });
  const token = key.secret;
  const loadBox = await Daemon.enroll(hub.url, token, 'load-box');
  const latencyBox = await Daemon.enroll(hub.url, token, 'latency-box');
  await loadBox.heartbeat(hub.url);
  await latencyBox.heartbeat(hub.url);
  // Both stay online for the whole run (the latency daemon's long-polls would keep it so too).
  const beating = setInterval(() => {
    void loadBox.heartbeat(hub.url).catch(() => {});
    void latencyBox.heartbeat(hub.url).catch(() => {});
  }, HEARTBEAT_MS);
  cleanups.push(() => clearInterval(beating));
  await request(hub.url, 'POST', '/api/v1/configurations/install', {
    token,
    body: { projectSlug: 'app', yaml: CONFIGURATION },
  });
  if (ANALYZE_EMPTY) await observer`analyze`;

  /** @param {string} trigger @param {string} deliveryKey */
  const dispatchBody = (trigger, deliveryKey) =>
    JSON.stringify({
      projectSlug: 'app',
      trigger,
      actor: 'bench-bot',
      deliveryKey,
      input: 'please look at the flaky test',
    });

  /**
   * Sequential dispatches on `dispatchUrl`, each once the latency daemon's long-poll on `pollUrl`
   * is waiting: response -> assignment (0 when the assignment came first) and request start ->
   * assignment, in ms. Each assignment is acknowledged running, then succeeded.
   * @param {string} dispatchUrl
   * @param {string} pollUrl
   */
  const assignmentLatency = async (dispatchUrl, pollUrl) => {
    const afterResponse = [];
    const afterStart = [];
    let early = 0;
    for (let round = 0; round < LATENCY_WARMUP + LATENCY_N; round++) {
      const poll = latencyBox
        .signed(pollUrl, 'GET', '/api/v1/daemon/assignments/next?wait=30')
        .then((answer) => ({ answer, at: performance.now() }));
      await sleep(POLL_SETTLE_MS);
      const start = performance.now();
      const dispatched = await call(dispatchUrl, 'POST', '/api/v1/manual-runs', {
        token,
        raw: dispatchBody('ping', `ping-${randomBytes(8).toString('hex')}`),
      });
      const responded = performance.now();
      if (dispatched.status !== 200) throw new Error(`dispatch: ${dispatched.status} ${dispatched.text}`);
      const { answer, at } = await poll;
      if (answer.status !== 200) throw new Error(`long-poll: ${answer.status} ${answer.text}`);
      const { assignment } = answer.body;
      if (assignment.triggerRunId !== dispatched.body.triggerRunId)
        throw new Error(`long-poll answered ${assignment.triggerRunId}, not ${dispatched.body.triggerRunId}`);
      await latencyBox.report(pollUrl, assignment.executionId, 'running');
      await latencyBox.report(pollUrl, assignment.executionId, 'succeeded');
      if (round < LATENCY_WARMUP) continue;
      if (at < responded) early++;
      afterResponse.push(Math.max(0, at - responded));
      afterStart.push(at - start);
    }
    const sorted = (/** @type {number[]} */ values) => values.sort((a, b) => a - b);
    return { afterResponse: sorted(afterResponse), afterStart: sorted(afterStart), early };
  };

  const oneInstance = await assignmentLatency(hub.url, hub.url);
  let twoInstances;
  if (external) {
    const second = await startHub(/** @type {string} */ (dirs[1]));
    twoInstances = await assignmentLatency(hub.url, second.url);
    await second.stop();
  }

  // Throughput: the hub, then the baseline on the same database.
  const loadHeaders = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const check = await call(hub.url, 'POST', '/api/v1/manual-runs', {
    token,
    raw: dispatchBody('load', `check-${randomBytes(8).toString('hex')}`),
  });
  if (check.status !== 200) throw new Error(`dispatch to the load daemon: ${check.status} ${check.text}`);
  const hubLoad = await load(
    hub.url,
    (deliveryKey) => dispatchBody('load', deliveryKey),
    loadHeaders,
    () => usage(observer, hub.child.pid, ['hub', 'hub-auth']),
  );
  const baseline = await startProcess(['bench/dispatch-baseline.js'], {
    BASELINE_DATABASE_URL: databaseUrl,
    BASELINE_ORGANIZATION_ID: organization.id,
  });
  cleanups.push(baseline.stop);
  await request(baseline.url, 'POST', '/api/v1/manual-runs', { raw: dispatchBody('load', 'check') });
  const baselineLoad = await load(
    baseline.url,
    (deliveryKey) => dispatchBody('load', deliveryKey),
    loadHeaders,
    () => usage(observer, baseline.child.pid, ['hub-bench-baseline']),
  );

  const ms = (/** @type {number} */ value) => value.toFixed(1).padStart(7);
  console.log(
    `Hub dispatch benchmark${hubRoot === root ? '' : ` (hub of ${hubRoot})`}${ANALYZE_EMPTY ? ', statistics taken before the load' : ''}: ${CONNECTIONS} connections, ${DURATION_S} s each after ${WARMUP_S} s of warm-up; ${LATENCY_N} sequential assignments per latency row after ${LATENCY_WARMUP} unmeasured, each dispatched ${POLL_SETTLE_MS} ms after its long-poll; loopback, node ${process.version}, ${databaseNote}`,
  );
  console.log('');
  console.log(
    'dispatch throughput                              server    req/s   p50 ms  p99 ms  non-2xx  CPU ms/req: server   db  WAL B/req',
  );
  for (const [name, who, r] of /** @type {const} */ ([
    ['POST /api/v1/manual-runs (distinct keys)', 'hub', hubLoad],
    ['POST: one INSERT ... ON CONFLICT DO NOTHING', 'baseline', baselineLoad],
  ])) {
    const cpu = (/** @type {number | undefined} */ ms) => (ms === undefined ? 'n/a' : ms.toFixed(3));
    console.log(
      `${name.padEnd(48)} ${who.padEnd(8)} ${r.rps.toFixed(0).padStart(7)} ${String(r.p50).padStart(8)} ${String(r.p99).padStart(7)} ${String(r.non2xx).padStart(8)} ${cpu(r.serverCpuMs).padStart(18)} ${cpu(r.dbCpuMs).padStart(6)} ${r.walBytes.toFixed(0).padStart(10)}`,
    );
  }
  console.log('');
  console.log('assignment latency, ms                                   p50     p99     max  assignment first');
  /** @type {[string, typeof oneInstance | undefined][]} */
  const latencyRows = [
    ['one instance', oneInstance],
    ['two instances', twoInstances],
  ];
  for (const [where, r] of latencyRows) {
    if (r === undefined) {
      console.log(`${where}: skipped (two instances need an external PostgreSQL)`);
      continue;
    }
    for (const [what, values, early] of /** @type {const} */ ([
      ['dispatch response -> assignment', r.afterResponse, String(r.early)],
      ['dispatch request start -> assignment', r.afterStart, ''],
    ])) {
      console.log(
        `${`${where}: ${what}`.padEnd(54)} ${ms(percentile(values, 0.5))} ${ms(percentile(values, 0.99))} ${ms(values.at(-1) ?? Number.NaN)} ${early.padStart(17)}`,
      );
    }
  }
  if (twoInstances !== undefined) console.log('(two instances: dispatch on hub 1, long-poll on hub 2, one PostgreSQL)');
  const ratio = hubLoad.rps / baselineLoad.rps;
  const one50 = percentile(oneInstance.afterResponse, 0.5);
  const one99 = percentile(oneInstance.afterResponse, 0.99);
  console.log('');
  console.log(
    `dispatch: ratio ${ratio.toFixed(2)} of the baseline's req/s (target >= ${TARGET_RATIO.toFixed(2)}: ${ratio >= TARGET_RATIO ? 'met' : 'MISSED'})`,
  );
  console.log(
    `assignment, one instance: p50 ${one50.toFixed(1)} ms (target < 20 ms: ${one50 < 20 ? 'met' : 'MISSED'}), p99 ${one99.toFixed(1)} ms (target < 100 ms: ${one99 < 100 ? 'met' : 'MISSED'})`,
  );
  if (twoInstances !== undefined) {
    const two99 = percentile(twoInstances.afterResponse, 0.99);
    console.log(
      `assignment, two instances: p99 ${two99.toFixed(1)} ms (target < 250 ms: ${two99 < 250 ? 'met' : 'MISSED'})`,
    );
  } else {
    console.log('assignment, two instances: not measured (target p99 < 250 ms)');
  }
  if (CPU_PROF_DIR !== undefined) console.log(`hub 1's CPU profile: ${CPU_PROF_DIR} (written when it stops)`);
  console.log(`(${((performance.now() - startedAt) / 1000).toFixed(0)} s)`);
} catch (error) {
  if (interrupted()) await new Promise(() => {}); // the SIGINT handler cleans up and exits
  console.error(error);
  printProcesses(processes);
  process.exitCode = 1;
} finally {
  await cleanUp();
}
