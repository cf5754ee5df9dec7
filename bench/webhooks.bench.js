// @ts-check
/**
 * `pnpm bench:webhooks`: outbound webhooks (issue 28) on one hub instance over a fresh PostgreSQL
 * database, with loopback receivers in this process that verify every signature.
 * 1. Run completed -> the receiver has it: sequential runs dispatched and ended through the daemon
 *    protocol; the time from the daemon's final status report being answered to the run.completed
 *    delivery's arrival, p50/p99 (target p99 < 1 s), against, from the same moment of the same
 *    runs, a client's GET /api/v1/runs/{id} seeing the final status (the baseline).
 * 2. Drain: 10,000 pending deliveries (1,000 events x 10 endpoints), released at once; (a) ten
 *    healthy endpoints, deliveries/s; (b) nine healthy and one whose receiver never answers (the
 *    hub's 10 s timeout), the nine's deliveries/s; rounds in the order a, b, b, a (target: b / a at
 *    least 0.8).
 * Prints; never fails on a missed target. A few minutes. See bench/README.md.
 */
import { createHash, createHmac, generateKeyPairSync, randomBytes, sign, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { call, expectOk } from './access-hub.js';
import { createDatabase, postgres } from './database.js';
import { startProcess } from './process.js';
import { check, cleanupOnExit, printProcesses, quantile, table } from './report.js';

/** Sequential runs timed after LATENCY_WARMUP unmeasured; the rows stop early (printed) after LATENCY_BUDGET_S. */
const LATENCY_N = Number(process.env.HUB_BENCH_WEBHOOKS_RUNS || 1000);
const LATENCY_WARMUP = 20;
const LATENCY_BUDGET_S = Number(process.env.HUB_BENCH_WEBHOOKS_LATENCY_BUDGET_S || 240);
const LATENCY_TARGET_MS = 1_000;
/** Events per drain round; each goes to the round's 10 endpoints. */
const EVENTS = Number(process.env.HUB_BENCH_WEBHOOKS_EVENTS || 1000);
const ENDPOINTS = 10;
/** Events of the unmeasured drain before the rounds. */
const WARMUP_EVENTS = 100;
/** Pairs of drain rounds, each pair run as a, b, then b, a. */
const ROUNDS = Number(process.env.HUB_BENCH_WEBHOOKS_ROUNDS || 1);
const DRAIN_WAIT_S = Number(process.env.HUB_BENCH_WEBHOOKS_DRAIN_WAIT_S || 300);
const DRAIN_TARGET = 0.8;
/** Events for the hanging endpoint alone, queued before each (b) round's: 0 unless given (see bench/README.md). */
const BACKLOG = Number(process.env.HUB_BENCH_WEBHOOKS_BACKLOG || 0);
/**
 * Pending deliveries of a disabled endpoint (another organization's, as the hub leaves one it
 * disabled after 5 days of failures), made before the rounds: 0 unless given (see bench/README.md).
 */
const DISABLED_BACKLOG = Number(process.env.HUB_BENCH_WEBHOOKS_DISABLED_BACKLOG || 0);
/** HUB_WEBHOOK_TIMEOUT_MS for the hub: unset (the default 10 s) unless given. */
const TIMEOUT_MS = process.env.HUB_BENCH_WEBHOOKS_TIMEOUT_MS;
const HEARTBEAT_MS = 5_000;

const root = new URL('..', import.meta.url).pathname;
/** The hub runs from HUB_BENCH_ROOT (another checkout, built) when set, for a before/after. */
const hubRoot = process.env.HUB_BENCH_ROOT ?? root;
const SCOPES = ['configuration:install', 'daemons:enroll', 'runs:dispatch', 'runs:read', 'webhooks:manage'];
const CONFIGURATION = `
environments:
  - { name: box, kind: daemon, daemon: bench-box, cwd: /tmp/bench }
triggers:
  - name: ping
    on: { manual.run: {} }
    max_runtime: 1h
    filters: { from_users: [bench-bot] }
    steps:
      - { id: go, environment: box, agent: { provider: claude }, prompt: [ { text: "Ping. {{ prompt }}" } ] }
`;

const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));
const sorted = (/** @type {number[]} */ values) => [...values].sort((a, b) => a - b);
const ms = (/** @type {number} */ value) => (Number.isFinite(value) ? value.toFixed(1) : '-');

/**
 * One request through the benches' client (bench/access-hub.js); anything but a 2xx or 3xx stops
 * the bench. Its JSON body.
 * @param {string} url @param {string} method @param {string} path
 * @param {{ token?: string, body?: unknown, headers?: Record<string, string> }} [options]
 */
async function request(url, method, path, options = {}) {
  const answer = await call(url, method, path, { token: options.token, json: options.body, headers: options.headers });
  expectOk(answer, `${method} ${path}`);
  return answer.body;
}

/** A daemon as DECISIONS.md describes it (as in bench/dispatch.bench.js): its own Ed25519 key, every request signed. */
class Daemon {
  /** @param {string} url @param {string} id @param {import('node:crypto').KeyObject} privateKey */
  constructor(url, id, privateKey) {
    this.url = url;
    this.id = id;
    this.privateKey = privateKey;
  }

  /** @param {string} url @param {string} token @param {string} name */
  static async enroll(url, token, name) {
    const enrollment = await request(url, 'POST', '/api/v1/daemons/enrollment-tokens', { token });
    const pair = generateKeyPairSync('ed25519');
    const enrolled = await request(url, 'POST', '/api/v1/daemons/enroll', {
      body: {
        token: enrollment.token,
        name,
        publicKey: { kty: 'OKP', crv: 'Ed25519', x: pair.publicKey.export({ format: 'jwk' }).x },
        runtimes: [{ provider: 'claude' }],
      },
    });
    return new Daemon(url, enrolled.daemonId, pair.privateKey);
  }

  /**
   * A signed request (METHOD\nPATH_WITH_QUERY\nTIMESTAMP\nNONCE\nBASE64URL(SHA-256(BODY))): its
   * status, text, and when the answer was read (performance.now()).
   * @param {string} method @param {string} pathWithQuery @param {unknown} [body]
   */
  async signed(method, pathWithQuery, body) {
    const raw = body === undefined ? '' : JSON.stringify(body);
    const digest = createHash('sha256').update(raw).digest('base64url');
    const timestamp = String(Date.now());
    const nonce = randomBytes(18).toString('base64url');
    const message = `${method}\n${pathWithQuery}\n${timestamp}\n${nonce}\n${digest}`;
    const response = await fetch(this.url + pathWithQuery, {
      method,
      headers: {
        'hub-daemon': this.id,
        'hub-timestamp': timestamp,
        'hub-nonce': nonce,
        'hub-signature': sign(null, Buffer.from(message), this.privateKey).toString('base64url'),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: raw }),
    });
    const text = await response.text();
    return { status: response.status, text, at: performance.now() };
  }

  /** @param {string} executionId @param {'running' | 'succeeded'} status */
  async report(executionId, status) {
    const answer = await this.signed(
      'POST',
      `/api/v1/daemon/executions/${executionId}/status`,
      status === 'running' ? { status } : { status, exitCode: 0 },
    );
    check(answer.status === 200, `report ${status} on ${executionId}: ${answer.status} ${answer.text}`);
    return answer;
  }
}

/**
 * @typedef {{
 *   secret: Buffer,
 *   firsts: Map<string, number>,
 *   duplicates: number,
 *   refused: number,
 *   open: number,
 *   maxOpen: number,
 *   onArrival?: (event: any, at: number) => void,
 * }} EndpointLog
 */

/** What every receiver got, by the endpoint's path (unique in the bench). @type {Map<string, EndpointLog>} */
const endpointLogs = new Map();

/**
 * Whether `signature` (`v1,<base64>`, space-separated) is the Standard Webhooks signature of the
 * request with `secret` (the base64 part of `whsec_…`, decoded).
 * @param {Buffer} secret @param {string} id @param {string} timestamp @param {Buffer} body @param {string} signature
 */
function verified(secret, id, timestamp, body, signature) {
  const expected = createHmac('sha256', secret).update(`${id}.${timestamp}.`).update(body).digest();
  return signature.split(' ').some((each) => {
    const given = Buffer.from(each.replace(/^v1,/, ''), 'base64');
    return each.startsWith('v1,') && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/**
 * A receiver on loopback, an origin of its own (as another endpoint's would be): it verifies each
 * request's signature with its path's secret and times the first arrival of each webhook-id, then
 * answers 204, or, when `hang`, never answers (the request is read; the connection held).
 * @param {{ hang: boolean }} options
 */
async function startReceiver({ hang }) {
  /** @type {import('node:http').ServerResponse[]} */
  const held = [];
  const server = createServer((req, res) => {
    const log = endpointLogs.get(req.url ?? '');
    if (log !== undefined) log.maxOpen = Math.max(log.maxOpen, ++log.open);
    res.on('close', () => log !== undefined && log.open--);
    /** @type {Buffer[]} */
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.now();
      const body = Buffer.concat(chunks);
      const id = String(req.headers['webhook-id']);
      const ok =
        log !== undefined &&
        verified(
          log.secret,
          id,
          String(req.headers['webhook-timestamp']),
          body,
          String(req.headers['webhook-signature']),
        );
      if (log === undefined || !ok) {
        if (log !== undefined) log.refused++;
        res.statusCode = 400;
        res.end();
        return;
      }
      if (log.firsts.has(id)) log.duplicates++;
      else {
        log.firsts.set(id, at);
        log.onArrival?.(JSON.parse(body.toString('utf8')), at);
      }
      if (hang) held.push(res);
      else {
        res.statusCode = 204;
        res.end();
      }
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${address.port}`,
    /** Ends the requests held open (the hub's attempts then fail at once). */
    release() {
      for (const res of held.splice(0)) res.destroy();
    },
    async close() {
      for (const res of held.splice(0)) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A process's CPU time so far (user + system), in ms, from /proc. @param {number | undefined} pid */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  // utime and stime are the 14th and 15th fields, in clock ticks (100 a second on Linux).
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The machine's CPU ticks so far, busy and in all, from /proc/stat. */
function machineTicks() {
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]?.trim().split(/\s+/).slice(1).map(Number) ?? [];
  const total = cpu.reduce((sum, value) => sum + value, 0);
  return { busy: total - (cpu[3] ?? 0) - (cpu[4] ?? 0), total };
}

/** An endpoint's log, before its secret is known. @returns {EndpointLog} */
const newLog = () => ({ secret: Buffer.alloc(0), firsts: new Map(), duplicates: 0, refused: 0, open: 0, maxOpen: 0 });

/** The signing key of a `whsec_…` secret. @param {string} secret */
const keyOf = (secret) => Buffer.from(secret.replace(/^whsec_/, ''), 'base64');

const startedAt = performance.now();
const dir = mkdtempSync(join(tmpdir(), 'hub-bench-webhooks-'));
const adminToken = `hub_admin_bench_${randomBytes(16).toString('hex')}`;
const { cleanups, cleanUp, interrupted } = cleanupOnExit([() => rmSync(dir, { recursive: true, force: true })]);
/** @type {[string, import('./process.js').Started][]} */
const processes = [];

try {
  const database = await createDatabase(cleanups);
  const healthy = await Promise.all(Array.from({ length: ENDPOINTS }, () => startReceiver({ hang: false })));
  const hanging = await startReceiver({ hang: true });
  for (const receiver of [...healthy, hanging]) cleanups.push(receiver.close);
  const hub = await startProcess(
    ['packages/server/dist/main.js'],
    {
      PORT: '0',
      HUB_DATA_DIR: dir,
      HUB_ADMIN_TOKEN: adminToken,
      HUB_LOG_LEVEL: 'warn',
      HUB_WEBHOOK_ALLOW_PRIVATE: 'true',
      ...(TIMEOUT_MS === undefined ? {} : { HUB_WEBHOOK_TIMEOUT_MS: TIMEOUT_MS }),
      ...(database.url === undefined ? {} : { DATABASE_URL: database.url }),
    },
    { cwd: hubRoot },
  );
  cleanups.push(hub.stop);
  processes.push(['hub', hub]);
  const url = hub.url;
  const databaseUrl = database.url ?? readFileSync(join(dir, 'database-url'), 'utf8').trim();
  const sql = postgres(databaseUrl, { max: 2, onnotice: () => {}, connection: { application_name: 'hub-bench' } });
  cleanups.push(() => sql.end({ timeout: 5 }));
  const admin = { token: adminToken };

  /** An organization with a project `app` and a key: its id and the key's secret. @param {string} slug */
  const organization = async (slug) => {
    await request(url, 'POST', '/api/admin/v1/organizations', { ...admin, body: { slug, name: slug } });
    await request(url, 'POST', `/api/admin/v1/organizations/${slug}/projects`, {
      ...admin,
      body: { slug: 'app', name: 'App' },
    });
    const key = await request(url, 'POST', `/api/admin/v1/organizations/${slug}/api-keys`, {
      ...admin,
      body: { name: 'bench', scopes: SCOPES },
    });
    const [row] = await sql`select id from organizations where slug = ${slug}`;
    return { id: /** @type {string} */ (row?.id), token: /** @type {string} */ (key.secret) };
  };
  /**
   * An endpoint for run.completed at `receiverUrl` + `path`, through the API; its log, keyed by
   * the path, verifies with its secret.
   * @param {string} token @param {string} receiverUrl @param {string} path
   */
  const endpoint = async (token, receiverUrl, path) => {
    const log = newLog();
    endpointLogs.set(path, log);
    const made = await request(url, 'POST', '/api/v1/webhook-endpoints', {
      token,
      body: { url: receiverUrl + path, events: ['run.completed'], description: `bench ${path}` },
    });
    log.secret = keyOf(made.secret);
    return { id: /** @type {string} */ (made.id), log };
  };

  // 1. Run completed -> the receiver has it.
  const org = await organization('latency');
  const daemon = await Daemon.enroll(url, org.token, 'bench-box');
  const beat = async () => {
    const answer = await daemon.signed('POST', '/api/v1/daemon/heartbeat', {});
    check(answer.status === 200, `heartbeat: ${answer.status} ${answer.text}`);
  };
  await beat();
  const beating = setInterval(() => void beat().catch(() => {}), HEARTBEAT_MS);
  cleanups.push(() => clearInterval(beating));
  await request(url, 'POST', '/api/v1/configurations/install', {
    token: org.token,
    body: { projectSlug: 'app', yaml: CONFIGURATION },
  });
  /** Arrivals of run.completed, by run; and who waits for one. */
  const arrived = new Map();
  /** @type {Map<string, (at: number) => void>} */
  const waiting = new Map();
  const latencyEndpoint = await endpoint(org.token, /** @type {{ url: string }} */ (healthy[0]).url, '/latency');
  latencyEndpoint.log.onArrival = (event, at) => {
    if (event.type !== 'run.completed') return;
    const run = event.data.triggerRunId;
    arrived.set(run, at);
    waiting.get(run)?.(at);
  };
  /** When run.completed of `run` arrived (at once if it has). @param {string} run */
  const arrivalOf = (run) =>
    new Promise((resolve, reject) => {
      const at = arrived.get(run);
      if (at !== undefined) return resolve(at);
      const timer = setTimeout(() => reject(new Error(`bench: no run.completed for ${run} within 30 s`)), 30_000);
      waiting.set(run, (when) => {
        clearTimeout(timer);
        waiting.delete(run);
        resolve(when);
      });
    });
  const tag = randomBytes(4).toString('hex');
  /** One run: dispatched, assigned, running, succeeded; then the webhook's and the poll's times. @param {number} i */
  const round = async (i) => {
    const dispatched = await request(url, 'POST', '/api/v1/manual-runs', {
      token: org.token,
      body: { projectSlug: 'app', trigger: 'ping', actor: 'bench-bot', deliveryKey: `${tag}-${i}` },
    });
    const run = /** @type {string} */ (dispatched.triggerRunId);
    const polled = await daemon.signed('GET', '/api/v1/daemon/assignments/next?wait=30');
    check(polled.status === 200, `long-poll: ${polled.status} ${polled.text}`);
    const { assignment } = JSON.parse(polled.text);
    check(assignment.triggerRunId === run, `the long-poll answered ${assignment.triggerRunId}, not ${run}`);
    await daemon.report(assignment.executionId, 'running');
    const ended = (await daemon.report(assignment.executionId, 'succeeded')).at;
    const seen = (async () => {
      for (;;) {
        const answer = await call(url, 'GET', `/api/v1/runs/${run}`, { token: org.token });
        expectOk(answer, `GET /api/v1/runs/${run}`);
        if (answer.body.status === 'succeeded') return performance.now();
        check(performance.now() - ended < 30_000, `run ${run} not succeeded 30 s after its report`);
      }
    })();
    const [arrival, visible] = await Promise.all([arrivalOf(run), seen]);
    return { run, webhookMs: arrival - ended, pollMs: visible - ended };
  };
  /** @type {{ run: string, webhookMs: number, pollMs: number }[]} */
  const rounds = [];
  const latencyCpu = cpuMs(hub.child.pid);
  const latencyStart = performance.now();
  for (let i = 0; i < LATENCY_WARMUP + LATENCY_N; i++) {
    if (i > LATENCY_WARMUP && performance.now() - latencyStart > LATENCY_BUDGET_S * 1000) break;
    const r = await round(i);
    if (i >= LATENCY_WARMUP) rounds.push(r);
  }
  const latencySeconds = (performance.now() - latencyStart) / 1000;
  const latencyHubCpu = (cpuMs(hub.child.pid) - latencyCpu) / (latencySeconds * 10);
  const [{ payload }] = await sql`select hub_run_json(${rounds[0]?.run ?? null}::uuid)::text as payload`;

  // 2. Drains: rounds a (ten healthy endpoints) and b (nine healthy, one that never answers).
  const backends = async () =>
    (await sql`select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`).map(
      (row) => /** @type {number} */ (row.pid),
    );
  const backendsCpu = (/** @type {number[]} */ pids) =>
    pids.reduce((sum, pid) => {
      try {
        return sum + cpuMs(pid);
      } catch {
        return sum; // a connection closed meanwhile
      }
    }, 0);
  /**
   * Samples the hub's connections (application_name hub; its pool holds 10) every 25 ms until
   * `stop()`: how many are busy on average (running a statement, or inside a transaction between
   * two), by what their statement is; the deliverer's are the lease (outbox.ts `lease`), the
   * attempt's record (`record`: its insert, updates, commit) and the next due time (`nextDue`).
   */
  const sampleConnections = () => {
    /** @type {Record<string, number>} */
    const busy = { lease: 0, record: 0, 'next due': 0, other: 0 };
    let samples = 0;
    let inTransaction = 0;
    let stopped = false;
    const kindOf = (/** @type {string} */ query) =>
      /with busy as/.test(query)
        ? 'lease'
        : /webhook_attempts|update webhook_deliveries set|update webhook_endpoints set failing_since|^(begin|commit)/i.test(
              query,
            )
          ? 'record'
          : /min\(d\.next_attempt_at\)/.test(query)
            ? 'next due'
            : 'other';
    const running = (async () => {
      while (!stopped) {
        const rows = await sql`
          select state, query from pg_stat_activity
          where datname = current_database() and application_name = 'hub' and state <> 'idle'`;
        samples++;
        for (const row of rows) {
          const kind = kindOf(String(row.query).trim());
          busy[kind] = (busy[kind] ?? 0) + 1;
          if (String(row.state).startsWith('idle in transaction')) inTransaction++;
        }
        await sleep(25);
      }
    })();
    return async () => {
      stopped = true;
      await running;
      const per = (/** @type {number} */ n) => n / Math.max(samples, 1);
      return {
        total: per(Object.values(busy).reduce((sum, n) => sum + n, 0)),
        byKind: Object.fromEntries(Object.entries(busy).map(([kind, n]) => [kind, per(n)])),
        inTransaction: per(inTransaction),
      };
    };
  };
  /** @param {number} index @param {'a' | 'b'} kind @param {number} events */
  const drain = async (index, kind, events = EVENTS) => {
    const drainOrg = await organization(`drain-${index < 0 ? 'warm' : index}-${kind}`);
    const endpoints = [];
    for (let e = 0; e < ENDPOINTS; e++) {
      const hangs = kind === 'b' && e === 0;
      const receiver = hangs ? hanging : /** @type {{ url: string }} */ (healthy[e]);
      endpoints.push({ hangs, ...(await endpoint(drainOrg.token, receiver.url, `/drain-${index}-${kind}-${e}`)) });
    }
    const bad = endpoints.find((each) => each.hangs);
    // HUB_BENCH_WEBHOOKS_BACKLOG: events for the hanging endpoint alone first, older than the rest
    // (their own transaction: deliveries are due from their transaction's start).
    const backlog = bad === undefined ? 0 : BACKLOG;
    if (backlog > 0)
      await sql.begin(async (tx) => {
        await tx`update webhook_endpoints set status = 'disabled' where organization_id = ${drainOrg.id} and id <> ${bad?.id ?? null}`;
        await tx`select webhook_emit(${drainOrg.id}, 'run.completed', ${payload}::jsonb) from generate_series(1, ${backlog})`;
        await tx`update webhook_endpoints set status = 'disabled' where organization_id = ${drainOrg.id}`;
      });
    // The pending deliveries, made in one transaction that ends with the endpoints disabled: the
    // deliverer sees them only once they are enabled again, all at once.
    await sql.begin(async (tx) => {
      await tx`update webhook_endpoints set status = 'enabled' where organization_id = ${drainOrg.id}`;
      await tx`select webhook_emit(${drainOrg.id}, 'run.completed', ${payload}::jsonb) from generate_series(1, ${events})`;
      await tx`update webhook_endpoints set status = 'disabled' where organization_id = ${drainOrg.id}`;
    });
    const [made] = await sql`
      select count(*)::int as n from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
      where e.organization_id = ${drainOrg.id} and d.status = 'pending'`;
    check(
      made?.n === events * ENDPOINTS + backlog,
      `${made?.n} pending deliveries, not ${events * ENDPOINTS + backlog}`,
    );
    await sql`vacuum (analyze) webhook_deliveries, webhook_events, webhook_attempts, webhook_endpoints`;
    await sleep(1_000);
    const logs = endpoints.filter((each) => !each.hangs).map((each) => each.log);
    const want = logs.length * events;
    const received = () => logs.reduce((sum, log) => sum + log.firsts.size, 0);
    const pids = await backends();
    const before = { hub: cpuMs(hub.child.pid), pg: backendsCpu(pids), machine: machineTicks() };
    const start = performance.now();
    const sampled = sampleConnections();
    await sql.begin(async (tx) => {
      await tx`update webhook_endpoints set status = 'enabled' where organization_id = ${drainOrg.id}`;
      await tx`select pg_notify('hub_webhooks', '')`;
    });
    // Until every healthy delivery arrived, or DRAIN_WAIT_S passed (the round is then printed as not drained).
    while (received() < want && performance.now() - start < DRAIN_WAIT_S * 1000) await sleep(20);
    const drained = received() >= want;
    const times = sorted(logs.flatMap((log) => [...log.firsts.values()]));
    const last = drained ? /** @type {number} */ (times.at(-1)) : performance.now();
    const middle = times[Math.floor(want / 2) - 1] ?? Number.NaN;
    const seconds = (last - start) / 1000;
    const after = { hub: cpuMs(hub.child.pid), pg: backendsCpu(pids), machine: machineTicks() };
    const connections = await sampled();
    // Every arrival recorded by the hub (its record follows the receiver's answer), for the figures from its log.
    const recordedCount = async () =>
      (
        await sql`
          select count(*)::int as n from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
          where e.organization_id = ${drainOrg.id} and d.status = 'delivered'`
      )[0]?.n;
    for (const until = performance.now() + 10_000; (await recordedCount()) < times.length && performance.now() < until;)
      await sleep(50);
    const [recorded] = await sql`
      select count(*) filter (where d.status = 'delivered')::int as delivered
      from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
      where e.organization_id = ${drainOrg.id} and not e.url like ${`${hanging.url}%`}`;
    // The hub's own attempts to the healthy endpoints, as its delivery log has them: how long each
    // was open, and how many were open at once (mean over the drain; most to one endpoint).
    const attempts = await sql`
      select a.delivery_id, d.endpoint_id, extract(epoch from a.started_at) * 1000 as started, a.duration_ms
      from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id
        join webhook_endpoints e on e.id = d.endpoint_id
      where e.organization_id = ${drainOrg.id} and not e.url like ${`${hanging.url}%`}`;
    const durations = sorted(attempts.map((row) => Number(row.duration_ms)));
    const openAtOnce = Math.max(
      ...endpoints.map((each) => {
        const edges = attempts
          .filter((row) => row.endpoint_id === each.id)
          .flatMap((row) => [
            [Number(row.started), 1],
            [Number(row.started) + Number(row.duration_ms), -1],
          ])
          .sort(
            (x, y) =>
              /** @type {number} */ (x[0]) - /** @type {number} */ (y[0]) ||
              /** @type {number} */ (x[1]) - /** @type {number} */ (y[1]),
          );
        let open = 0;
        let most = 0;
        for (const [, step] of edges) most = Math.max(most, (open += /** @type {number} */ (step)));
        return most;
      }),
    );
    const result = {
      label: index < 0 ? 'warm-up' : `${index + 1}${kind}`,
      kind,
      endpoints: kind === 'a' ? `${ENDPOINTS} healthy` : `${ENDPOINTS - 1} healthy + 1 hanging`,
      delivered: times.length,
      want,
      drained,
      backlog,
      seconds,
      rate: times.length / seconds,
      firstHalf: want / 2 / ((middle - start) / 1000),
      secondHalf: want / 2 / ((last - middle) / 1000),
      attemptP50: quantile(durations, 0.5),
      attemptP99: quantile(durations, 0.99),
      inFlight: durations.reduce((sum, value) => sum + value, 0) / (seconds * 1000),
      openAtOnce,
      hubCpu: (after.hub - before.hub) / (seconds * 10),
      pgCpu: (after.pg - before.pg) / (seconds * 10),
      machineBusy: ((after.machine.busy - before.machine.busy) / (after.machine.total - before.machine.total)) * 100,
      duplicates: logs.reduce((sum, log) => sum + log.duplicates, 0),
      refused: logs.reduce((sum, log) => sum + log.refused, 0),
      recordedDelivered: recorded?.delivered,
      connections,
      hangingReached: bad === undefined ? undefined : bad.log.firsts.size,
      hangingMaxOpen: bad === undefined ? undefined : bad.log.maxOpen,
    };
    // The hanging endpoint goes (its pending deliveries with it), and its held attempts end.
    if (bad !== undefined) {
      await request(url, 'DELETE', `/api/v1/webhook-endpoints/${bad.id}`, { token: drainOrg.token });
      hanging.release();
    }
    return result;
  };
  /** @type {Awaited<ReturnType<typeof drain>>[]} */
  const drains = [];
  await drain(-1, 'a', WARMUP_EVENTS); // unmeasured: the hub's connections to the receivers, plans and code warmed
  if (DISABLED_BACKLOG > 0) {
    const gone = await organization('disabled');
    const { id } = await endpoint(gone.token, hanging.url, '/disabled');
    await sql.begin(async (tx) => {
      await tx`select webhook_emit(${gone.id}, 'run.completed', ${payload}::jsonb) from generate_series(1, ${DISABLED_BACKLOG})`;
      await tx`update webhook_endpoints set status = 'disabled', disabled_at = now() where id = ${id}`;
    });
  }
  for (let pair = 0; pair < ROUNDS; pair++)
    for (const kind of /** @type {const} */ (['a', 'b', 'b', 'a'])) drains.push(await drain(drains.length, kind));

  // The report.
  const load = loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
  console.log(
    `bench:webhooks: one hub instance${hubRoot === root ? '' : ` of ${hubRoot}`}, ${database.note}; loopback receivers in the bench's process; node ${process.version}, load average ${load}`,
  );
  console.log(
    `(HUB_WEBHOOK_ALLOW_PRIVATE=true, HUB_WEBHOOK_TIMEOUT_MS ${TIMEOUT_MS ?? 'unset: 10 s'}; payload: a run.completed of ${Buffer.byteLength(payload)} bytes of data)\n`,
  );
  const webhookMs = sorted(rounds.map((r) => r.webhookMs));
  const pollMs = sorted(rounds.map((r) => r.pollMs));
  console.log(
    `1. Daemon's final report answered -> run.completed at the receiver, ${rounds.length} sequential runs after ${LATENCY_WARMUP} unmeasured; ${latencySeconds.toFixed(0)} s, hub CPU ${latencyHubCpu.toFixed(0)} % of a core\n`,
  );
  const mean = (/** @type {number[]} */ values) => values.reduce((sum, value) => sum + value, 0) / values.length;
  console.log(
    table(
      [
        ['from the final report answered to', 'n', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'mean ms'],
        ...[
          ['run.completed at the receiver', webhookMs],
          ['GET /api/v1/runs/{id} shows it (baseline)', pollMs],
        ].map(([label, values]) => {
          const v = /** @type {number[]} */ (values);
          return [
            /** @type {string} */ (label),
            v.length,
            ms(quantile(v, 0.5)),
            ms(quantile(v, 0.9)),
            ms(quantile(v, 0.99)),
            ms(v.at(-1) ?? Number.NaN),
            ms(mean(v)),
          ];
        }),
      ],
      ['l', 'r', 'r', 'r', 'r', 'r', 'r'],
    ),
  );
  console.log(
    '(baseline: a client that asks GET /api/v1/runs/{id} the moment the report is answered, concurrently with the delivery: one round trip)\n',
  );
  if (DISABLED_BACKLOG > 0)
    console.log(
      `(HUB_BENCH_WEBHOOKS_DISABLED_BACKLOG: ${DISABLED_BACKLOG} pending deliveries of a disabled endpoint, older than the rounds')`,
    );
  console.log(
    `2. Drains: ${EVENTS} run.completed events x ${ENDPOINTS} endpoints = ${EVENTS * ENDPOINTS} pending deliveries, released at once; receivers answer 204 at once, the hanging one never\n`,
  );
  console.log(
    table(
      [
        [
          'round',
          'endpoints',
          'healthy delivered',
          's',
          'deliveries/s',
          '1st half /s',
          '2nd half /s',
          'attempt p50/p99 ms',
          'in flight',
          'most open / endpoint',
          'hub CPU %',
          'PG CPU %',
          'machine busy %',
          'dupl.',
          'hanging: reached (max open)',
        ],
        ...drains.map((d) => [
          d.label,
          d.backlog > 0 ? `${d.endpoints}, ${d.backlog} older to it` : d.endpoints,
          `${d.delivered}${d.drained ? '' : ` of ${d.want}: NOT drained`} (${d.recordedDelivered} recorded)`,
          d.seconds.toFixed(2),
          d.rate.toFixed(0),
          d.firstHalf.toFixed(0),
          d.secondHalf.toFixed(0),
          `${ms(d.attemptP50)} / ${ms(d.attemptP99)}`,
          d.inFlight.toFixed(1),
          d.openAtOnce,
          d.hubCpu.toFixed(0),
          d.pgCpu.toFixed(0),
          d.machineBusy.toFixed(0),
          d.duplicates,
          d.hangingReached === undefined ? '' : `${d.hangingReached} (${d.hangingMaxOpen})`,
        ]),
      ],
      ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
    ),
  );
  console.log(
    "(s: from the release to the last healthy delivery's arrival; attempt: the hub's HTTP attempt to a healthy endpoint (its delivery log's duration_ms); in flight: their mean number open at once (sum of durations / s); most open: to one endpoint at a time; CPU %: 100 = one core, PG: this database's backends)\n",
  );
  for (const d of drains)
    console.log(
      `${d.label}: the hub's connections busy (of 10), mean: ${d.connections.total.toFixed(1)} (${Object.entries(
        d.connections.byKind,
      )
        .map(([kind, n]) => `${kind} ${n.toFixed(1)}`)
        .join(', ')}; between statements of a transaction ${d.connections.inTransaction.toFixed(1)})`,
    );
  console.log('');
  const rateOf = (/** @type {'a' | 'b'} */ kind) => {
    const picked = drains.filter((d) => d.kind === kind);
    return picked.reduce((sum, d) => sum + d.delivered, 0) / picked.reduce((sum, d) => sum + d.seconds, 0);
  };
  const ratio = rateOf('b') / rateOf('a');
  const p99 = quantile(webhookMs, 0.99);
  const verdict = (/** @type {boolean} */ met) => (met ? 'met' : 'MISSED');
  console.log('Summary\n');
  console.log(
    table(
      [
        ['figure', 'value', 'target', ''],
        [
          'run.completed at the receiver p99',
          `${ms(p99)} ms (p50 ${ms(quantile(webhookMs, 0.5))} ms)`,
          `< ${LATENCY_TARGET_MS} ms`,
          verdict(p99 < LATENCY_TARGET_MS),
        ],
        [
          'webhook / GET baseline, p50 and p99',
          `${(quantile(webhookMs, 0.5) / quantile(pollMs, 0.5)).toFixed(2)}x, ${(p99 / quantile(pollMs, 0.99)).toFixed(2)}x`,
          '(none)',
          '',
        ],
        ['drain (a): 10 healthy, deliveries/s', rateOf('a').toFixed(0), '(none)', ''],
        ['drain (b): the nine healthy, deliveries/s', rateOf('b').toFixed(0), '(none)', ''],
        [
          'b / a',
          Number.isFinite(ratio) ? `${ratio.toFixed(2)}x` : '-',
          `>= ${DRAIN_TARGET}x`,
          verdict(ratio >= DRAIN_TARGET),
        ],
      ],
      ['l', 'l', 'l', 'l'],
    ),
  );
  console.log(`\n(${((performance.now() - startedAt) / 1000).toFixed(0)} s)`);
} catch (error) {
  if (interrupted()) await new Promise(() => {}); // the SIGINT handler cleans up and exits
  console.error(error);
  printProcesses(processes);
  process.exitCode = 1;
} finally {
  await cleanUp();
}
