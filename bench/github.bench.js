// @ts-check
/**
 * `pnpm bench:github`: GitHub webhooks on two hub instances over one fresh PostgreSQL database.
 * 1. Webhook to daemon assignment: a signed issue_comment delivery's request to the daemon's
 *    long-poll answering with the run, p50/p99 over sequential deliveries, against a manual
 *    dispatch's on the same hubs and daemon, interleaved (target: p99 at most 1.5x); the hub a
 *    request goes to alternates (half and half, in a shuffled order), and each hub is printed apart.
 * 2. A burst of 500 signed deliveries within a second over both instances: every 202 within 1 s,
 *    then every delivery done and every run started exactly once; the time until all runs existed.
 * 3. Floods: 8 clients posting 16 MiB bodies without a valid signature to both instances (no
 *    signature, chunked; a wrong one with Content-Length; a wrong one, chunked): signed deliveries'
 *    answer time p99 during each against quiet, in interleaved blocks (target: at most 2x).
 * The hubs' calls to GitHub go to bench/github-sink.js. Bounded (a few minutes); prints; never
 * fails on a missed target. See bench/README.md.
 */
import { fork } from 'node:child_process';
import { createHash, createHmac, generateKeyPairSync, randomBytes, randomUUID, sign } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { createRequire } from 'node:module';
import { loadavg, setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createDatabase, postgres } from './database.js';
import { startGitHubSink } from './github-sink.js';
import { startProcess } from './process.js';
import { check, cleanupOnExit, quantile, table, printProcesses } from './report.js';

/** Sequential deliveries (and as many manual dispatches, interleaved) after LATENCY_WARMUP pairs unmeasured. */
const LATENCY_N = Number(process.env.HUB_BENCH_GITHUB_LATENCY_N || 200);
const LATENCY_WARMUP = 20;
/** The latency rows stop early, with fewer samples (printed), once they took this long. */
const LATENCY_BUDGET_S = Number(process.env.HUB_BENCH_GITHUB_LATENCY_BUDGET_S || 150);
/** As bench/dispatch.bench.js: the long-poll's time to reach its wait before the request is sent. */
const POLL_SETTLE_MS = 25;
const LATENCY_TARGET = 1.5;
const BURST = Number(process.env.HUB_BENCH_GITHUB_BURST || 500);
const BURST_SPREAD_MS = 1_000;
const ANSWER_TARGET_MS = 1_000;
/** How long the bench waits for the burst's deliveries to be done before it says which are not. */
const BURST_WAIT_S = Number(process.env.HUB_BENCH_GITHUB_BURST_WAIT_S || 120);
const FLOOD_CLIENTS = 8;
const FLOOD_BYTES = 16 * 1024 * 1024;
/** Signed deliveries timed per flood kind and quietly, in blocks of FLOOD_BLOCK, interleaved. */
const FLOOD_SAMPLES = Number(process.env.HUB_BENCH_GITHUB_FLOOD_N || 200);
const FLOOD_BLOCK = 25;
const FLOOD_SETTLE_MS = 1_000;
const FLOOD_TARGET = 2;
/** As bench/abuse.bench.js: the flooders' niceness; a remote flooder takes no CPU from the hub's cores. */
const FLOOD_NICE = Number(process.env.HUB_BENCH_FLOOD_NICE ?? 19);
const HEARTBEAT_MS = 5_000;
/** A directory: both hubs then run with --cpu-prof and write their profiles there when stopped. */
const CPU_PROF_DIR = process.env.HUB_BENCH_CPU_PROF;
/** How long a hub is given to stop at the end (longer when profiling: a killed hub writes no profile). */
const STOP_GRACE_S = CPU_PROF_DIR === undefined ? 30 : 120;

const SECRET = `bench-webhook-secret-${randomBytes(8).toString('hex')}`;
const SLUG = 'hub-bot';
const INSTALLATION = 4_200_042;
const REPOSITORY = 'octo-org/app';
const LOGIN = 'octocat';
const root = fileURLToPath(new URL('..', import.meta.url));
/** The hubs run from HUB_BENCH_ROOT (another checkout, built) when set, for a before/after; the rest is this checkout's. */
const hubRoot = process.env.HUB_BENCH_ROOT ?? root;

const CONFIGURATION = `
environments:
  - { name: latency, kind: daemon, daemon: latency-box, cwd: /tmp/bench }
  - { name: burst, kind: daemon, daemon: burst-box, cwd: /tmp/bench }
triggers:
  - name: ping
    on: { manual.run: {}, github.mention: {} }
    max_runtime: 1h
    filters: { from_users: [${LOGIN}] }
    steps:
      - { id: go, environment: latency, agent: { provider: claude }, prompt: [ { text: "Ping. {{ prompt }}" } ] }
  - name: burst
    on: { github.mention: {} }
    max_runtime: 1h
    filters: { from_users: [${LOGIN}] }
    steps:
      - { id: go, environment: burst, agent: { provider: claude, mode: edit }, prompt: [ { text: "Fix {{ event.url }}. {{ prompt }}" } ] }
`;

/** @typedef {{ status: number, text: string, at: number }} Answer */
/** @typedef {'unsigned' | 'wrong' | 'wrong-chunked'} FloodKind */
/** @type {[FloodKind, string][]} */
const FLOODS = [
  ['unsigned', 'flood: no X-Hub-Signature-256, chunked'],
  ['wrong', 'flood: wrong signature, Content-Length 16 MiB'],
  ['wrong-chunked', 'flood: wrong signature, chunked'],
];

/**
 * 16 MiB bodies posted to the webhook in a loop by `clients` clients (client k to hub k mod n),
 * each on a new connection, until told to stop; then how they were answered. `unsigned`: no
 * X-Hub-Signature-256, chunked (with a Content-Length over the limit the hub answers 413 before it
 * looks at the signature); `wrong`: a well-formed signature that does not match, Content-Length
 * 16 MiB; `wrong-chunked`: the same signature, chunked, so that the hub reads up to its limit.
 * @param {FloodKind} kind
 * @param {string[]} urls
 * @param {number} clients
 */
async function flood(kind, urls, clients) {
  setPriority(FLOOD_NICE);
  const body = Buffer.alloc(FLOOD_BYTES, ' ');
  body.write('{"action":"created","padding":"');
  body.write('"}', FLOOD_BYTES - 2);
  let stopping = false;
  /** @type {Record<string, number>} */
  const statuses = {};
  let requests = 0;
  // 'count': how many requests so far; anything else: stop.
  process.on('message', (message) => {
    if (message === 'count') process.send?.({ count: requests });
    else stopping = true;
  });
  const client = async (/** @type {number} */ k) => {
    const url = /** @type {string} */ (urls[k % urls.length]);
    while (!stopping) {
      /** @type {Record<string, string>} */
      const headers = {
        'content-type': 'application/json',
        'x-github-event': 'issue_comment',
        'x-github-delivery': randomUUID(),
      };
      if (kind === 'wrong') headers['content-length'] = String(FLOOD_BYTES);
      else headers['transfer-encoding'] = 'chunked';
      if (kind !== 'unsigned') headers['x-hub-signature-256'] = `sha256=${randomBytes(32).toString('hex')}`;
      const outcome = await postOnce(`${url}/api/v1/github/webhook`, headers, body);
      statuses[outcome] = (statuses[outcome] ?? 0) + 1;
      requests++;
    }
  };
  process.send?.('started');
  await Promise.all(Array.from({ length: clients }, (_, k) => client(k)));
  process.send?.({ statuses, requests });
  process.disconnect?.();
}

/**
 * One POST on a connection of its own: its status, or the error that ended it (a hub that answers
 * before the body is sent and closes the connection may end the upload: EPIPE, ECONNRESET).
 * @param {string} url
 * @param {Record<string, string>} headers
 * @param {Buffer} body
 * @returns {Promise<string>}
 */
function postOnce(url, headers, body) {
  return new Promise((resolve) => {
    let settled = false;
    const req = httpRequest(url, { method: 'POST', headers, agent: false });
    const finish = (/** @type {string} */ outcome) => {
      if (settled) return;
      settled = true;
      req.destroy();
      resolve(outcome);
    };
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => finish(String(res.statusCode)));
      res.on('error', () => finish(String(res.statusCode)));
    });
    req.on('error', (error) => finish(/** @type {NodeJS.ErrnoException} */ (error).code ?? 'error'));
    req.end(body);
  });
}

/**
 * One HTTP request on `agent`: its status, its text and when the answer was read (performance.now()).
 * Repeated once after a network failure (a keep-alive connection the server closed just then):
 * every request here may be repeated (a delivery by its X-GitHub-Delivery, a dispatch by its
 * delivery key), and `headers` as a function is called for each attempt (a signed request is
 * signed anew).
 * @param {string} url
 * @param {string} method
 * @param {string} path
 * @param {{ agent?: Agent, body?: string, headers?: Record<string, string> | (() => Record<string, string>) }} [options]
 * @returns {Promise<Answer>}
 */
async function send(url, method, path, options = {}) {
  for (let attempt = 1; ; attempt++) {
    const headers = { ...(typeof options.headers === 'function' ? options.headers() : options.headers) };
    if (options.body !== undefined) headers['content-length'] = String(Buffer.byteLength(options.body));
    try {
      return await new Promise((resolve, reject) => {
        const req = httpRequest(url + path, { method, headers, agent: options.agent }, (res) => {
          /** @type {Buffer[]} */
          const chunks = [];
          res.on('data', (chunk) => chunks.push(chunk));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              text: Buffer.concat(chunks).toString('utf8'),
              at: performance.now(),
            }),
          );
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end(options.body);
      });
    } catch (error) {
      if (attempt > 1) throw new Error(`${method} ${url}${path}: ${String(error)}`, { cause: error });
      await sleep(50);
    }
  }
}

/** `send` with a JSON body and an optional bearer token; anything but a 2xx stops the bench. @param {string} url @param {string} method @param {string} path @param {{ token?: string, body?: unknown }} [options] */
async function request(url, method, path, options = {}) {
  /** @type {Record<string, string>} */
  const headers = {};
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const answer = await send(url, method, path, {
    headers,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  check(answer.status < 300, `${method} ${path}: ${answer.status} ${answer.text.slice(0, 300)}`);
  return answer.text === '' ? undefined : JSON.parse(answer.text);
}

/** A daemon as DECISIONS.md describes it (as in bench/dispatch.bench.js): its own Ed25519 key, every request signed. */
class Daemon {
  /** @param {string} id @param {string} name @param {import('node:crypto').KeyObject} privateKey */
  constructor(id, name, privateKey) {
    this.id = id;
    this.name = name;
    this.privateKey = privateKey;
    this.agent = new Agent({ keepAlive: true });
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
    return new Daemon(enrolled.daemonId, name, pair.privateKey);
  }

  /** METHOD\nPATH_WITH_QUERY\nTIMESTAMP\nNONCE\nBASE64URL(SHA-256(BODY)). @param {string} url @param {string} method @param {string} pathWithQuery @param {unknown} [body] */
  signed(url, method, pathWithQuery, body) {
    const raw = body === undefined ? '' : JSON.stringify(body);
    const digest = createHash('sha256').update(raw).digest('base64url');
    const headers = () => {
      const timestamp = String(Date.now());
      const nonce = randomBytes(18).toString('base64url');
      const message = `${method}\n${pathWithQuery}\n${timestamp}\n${nonce}\n${digest}`;
      return {
        'hub-daemon': this.id,
        'hub-timestamp': timestamp,
        'hub-nonce': nonce,
        'hub-signature': sign(null, Buffer.from(message), this.privateKey).toString('base64url'),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      };
    };
    return send(url, method, pathWithQuery, {
      agent: this.agent,
      headers,
      ...(body === undefined ? {} : { body: raw }),
    });
  }

  /** @param {string} url */
  async heartbeat(url) {
    const answer = await this.signed(url, 'POST', '/api/v1/daemon/heartbeat', {});
    check(answer.status === 200, `heartbeat of ${this.name}: ${answer.status} ${answer.text}`);
  }

  /** @param {string} url @param {string} executionId @param {string} status */
  async report(url, executionId, status) {
    const answer = await this.signed(
      url,
      'POST',
      `/api/v1/daemon/executions/${executionId}/status`,
      status === 'running' ? { status } : { status, exitCode: 0 },
    );
    check(answer.status === 200, `report ${status} on ${executionId}: ${answer.status} ${answer.text}`);
  }
}

/** GitHub's own issue_comment.created example (@octokit/webhooks-examples, about 13 KB), as a base. */
const EXAMPLE = (() => {
  const examples = /** @type {{ name: string, examples: any[] }[]} */ (
    createRequire(new URL('../packages/server/package.json', import.meta.url))(
      '@octokit/webhooks-examples/api.github.com/index.json',
    )
  );
  const found = examples
    .find((entry) => entry.name === 'issue_comment')
    ?.examples.find((payload) => payload.action === 'created' && payload.issue.pull_request === undefined);
  check(found !== undefined, 'no issue_comment.created example on an issue');
  return JSON.stringify(found);
})();

/**
 * A signed issue_comment delivery mentioning `@hub-bot <trigger>` on issue `number`: its id, raw
 * body and headers, as GitHub sends it (the payload: GitHub's example with the bench's repository,
 * installation, issue, comment and login).
 * @param {string} id
 * @param {number} number
 * @param {string} trigger
 */
function delivery(id, number, trigger) {
  const payload = JSON.parse(EXAMPLE);
  payload.installation = { id: INSTALLATION, node_id: 'MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uNDI=' };
  payload.repository.full_name = REPOSITORY;
  payload.repository.name = 'app';
  payload.repository.owner.login = 'octo-org';
  Object.assign(payload.issue, {
    number,
    title: `Flaky test ${number}`,
    body: 'The parser test fails one run in ten.',
    html_url: `https://github.com/${REPOSITORY}/issues/${number}`,
  });
  payload.issue.user.login = LOGIN;
  Object.assign(payload.comment, { id: 1_000_000_000 + number, body: `@${SLUG} ${trigger} please look at it` });
  Object.assign(payload.comment.user, { login: LOGIN, type: 'User' });
  payload.sender.login = LOGIN;
  const body = JSON.stringify(payload);
  return {
    id,
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'GitHub-Hookshot/bench',
      'x-github-event': 'issue_comment',
      'x-github-delivery': id,
      'x-github-hook-installation-target-type': 'integration',
      'x-hub-signature-256': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`,
    },
  };
}

/**
 * Stops `child` with SIGTERM, and kills it if it has not exited within `graceS` seconds: how long
 * it took, and whether it had to be killed.
 * @param {import('node:child_process').ChildProcess} child
 * @param {number} graceS
 */
async function stopTimed(child, graceS) {
  const start = performance.now();
  if (child.exitCode !== null || child.signalCode !== null) return { seconds: 0, killed: false };
  const exited = new Promise((resolve) => child.once('exit', () => resolve(true)));
  child.kill('SIGTERM');
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  const inTime = await Promise.race([
    exited,
    new Promise((resolve) => (timer = setTimeout(() => resolve(false), graceS * 1000))),
  ]);
  clearTimeout(timer);
  if (!inTime) {
    child.kill('SIGKILL');
    await exited;
  }
  return { seconds: (performance.now() - start) / 1000, killed: !inTime };
}

/** The machine's CPU ticks so far, busy and in all, from /proc/stat (zeros elsewhere). */
function machineTicks() {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]?.trim().split(/\s+/).slice(1).map(Number) ?? [];
    const total = cpu.reduce((sum, value) => sum + value, 0);
    return { busy: total - (cpu[3] ?? 0) - (cpu[4] ?? 0), total };
  } catch {
    return { busy: 0, total: 0 };
  }
}

/**
 * A process's CPU time so far, in ms, from /proc (user + system, or `system` alone); undefined elsewhere.
 * @param {number | undefined} pid
 * @param {'all' | 'system'} [which]
 */
function cpuMs(pid, which = 'all') {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    // utime and stime, in ticks of USER_HZ (100 a second on Linux).
    return ((which === 'all' ? Number(fields[11]) : 0) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));
const sorted = (/** @type {number[]} */ values) => [...values].sort((a, b) => a - b);
const ms = (/** @type {number} */ value) => (Number.isFinite(value) ? value.toFixed(1) : '-');

async function main() {
  const startedAt = performance.now();
  const dirs = [0, 1, 2].map(() => mkdtempSync(join(tmpdir(), 'hub-bench-github-')));
  const { cleanups, cleanUp, interrupted } = cleanupOnExit([
    () => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })),
  ]);
  /** @type {[string, import('./process.js').Started][]} */
  const processes = [];
  try {
    const database = await createDatabase(cleanups);
    const keyFile = join(/** @type {string} */ (dirs[2]), 'app.pem');
    writeFileSync(
      keyFile,
      generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }),
    );
    const adminToken = `hub_admin_bench_${randomBytes(16).toString('hex')}`;
    let databaseUrl = database.url;
    /** One sink per hub, so that each hub's calls to GitHub are counted (and timed) apart. */
    const sinks = [];
    /** @param {number} index */
    const startHub = async (index) => {
      const sink = await startGitHubSink();
      cleanups.push(sink.close);
      sinks.push(sink);
      const hub = await startProcess(
        [
          ...(CPU_PROF_DIR === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF_DIR}`]),
          'packages/server/dist/main.js',
        ],
        {
          PORT: '0',
          HUB_DATA_DIR: /** @type {string} */ (dirs[index]),
          HUB_ADMIN_TOKEN: adminToken,
          HUB_LOG_LEVEL: 'warn',
          HUB_GITHUB_APP_ID: '4242',
          HUB_GITHUB_APP_SLUG: SLUG,
          HUB_GITHUB_PRIVATE_KEY_FILE: keyFile,
          HUB_GITHUB_WEBHOOK_SECRET: SECRET,
          HUB_GITHUB_API_URL: sink.url,
          ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }),
        },
        { cwd: hubRoot },
      );
      cleanups.push(hub.stop);
      processes.push([`hub ${index + 1}`, hub]);
      return hub;
    };
    const first = await startHub(0);
    databaseUrl ??= readFileSync(join(/** @type {string} */ (dirs[0]), 'database-url'), 'utf8').trim();
    // Two instances need a PostgreSQL both reach; on one hub's embedded one there is only one.
    const hubs = database.url === undefined ? [first] : [first, await startHub(1)];
    const urls = hubs.map((hub) => hub.url);
    const sql = postgres(databaseUrl, { max: 2, onnotice: () => {}, connection: { application_name: 'hub-bench' } });
    cleanups.push(() => sql.end({ timeout: 5 }));

    // An organization, a project naming the repository, the installation linked (by SQL, as the
    // operator would through the API), a key, two daemons kept online, the configuration.
    const admin = { token: adminToken };
    await request(first.url, 'POST', '/api/admin/v1/organizations', {
      ...admin,
      body: { slug: 'bench', name: 'Bench' },
    });
    await request(first.url, 'POST', '/api/admin/v1/organizations/bench/projects', {
      ...admin,
      body: { slug: 'app', name: 'App' },
    });
    await sql`insert into github_installations (installation_id, organization_id)
      select ${INSTALLATION}, id from organizations where slug = 'bench'`;
    await sql`update projects set repository = ${REPOSITORY} where slug = 'app'`;
    const key = await request(first.url, 'POST', '/api/admin/v1/organizations/bench/api-keys', {
      ...admin,
      body: { name: 'bench', scopes: ['runs:dispatch', 'configuration:install', 'daemons:enroll', 'runs:read'] },
    });
    const token = /** @type {string} */ (key.secret);
    const latencyBox = await Daemon.enroll(first.url, token, 'latency-box');
    const burstBox = await Daemon.enroll(first.url, token, 'burst-box');
    cleanups.push(() => [latencyBox, burstBox].forEach((daemon) => daemon.agent.destroy()));
    await latencyBox.heartbeat(first.url);
    await burstBox.heartbeat(first.url);
    const beating = setInterval(() => {
      void latencyBox.heartbeat(first.url).catch(() => {});
      void burstBox.heartbeat(first.url).catch(() => {});
    }, HEARTBEAT_MS);
    cleanups.push(() => clearInterval(beating));
    await request(first.url, 'POST', '/api/v1/configurations/install', {
      token,
      body: { projectSlug: 'app', yaml: CONFIGURATION },
    });
    const tag = randomBytes(4).toString('hex');

    // 1. Webhook -> assignment against manual dispatch -> assignment, interleaved, alternating hubs.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    cleanups.push(() => agent.destroy());
    const pollUrl = first.url;
    /**
     * One round: the latency daemon's long-poll on hub 1 waiting, then `go()` sends the request;
     * resolves with the times from the request's start to its answer and to the assignment, and
     * the run assigned (acknowledged running, then succeeded, so that nothing is offered again).
     * @param {() => Promise<Answer>} go
     */
    const round = async (go) => {
      const poll = (async () => {
        const until = performance.now() + 60_000;
        for (;;) {
          const answer = await latencyBox.signed(pollUrl, 'GET', '/api/v1/daemon/assignments/next?wait=30');
          if (answer.status === 200) return answer;
          check(answer.status === 204, `long-poll: ${answer.status} ${answer.text}`);
          check(performance.now() < until, 'no assignment within 60 s');
        }
      })();
      await sleep(POLL_SETTLE_MS);
      const start = performance.now();
      const answer = await go();
      const polled = await poll;
      const { assignment } = JSON.parse(polled.text);
      await latencyBox.report(pollUrl, assignment.executionId, 'running');
      await latencyBox.report(pollUrl, assignment.executionId, 'succeeded');
      return { answer, answerMs: answer.at - start, assignedMs: polled.at - start, run: assignment.triggerRunId };
    };
    /** @type {{ webhook: { hub: number, answerMs: number, assignedMs: number, waitMs: number }[], manual: { hub: number, answerMs: number, assignedMs: number }[] }} */
    const latency = { webhook: [], manual: [] };
    // The hub each pair goes to: alternating during the warm-up, then half and half in a shuffled
    // order (seeded): a strict alternation would lock in step with the hubs' own periodic work
    // (the reporter's spacing of writes to GitHub) and blame one hub for it.
    let seed = 0x9e3779b9;
    const random = () => (seed = (Math.imul(seed, 1_664_525) + 1_013_904_223) >>> 0) / 2 ** 32;
    const measuredOrder = Array.from({ length: LATENCY_N }, (_, i) => i % hubs.length);
    for (let i = measuredOrder.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [measuredOrder[i], measuredOrder[j]] = [
        /** @type {number} */ (measuredOrder[j]),
        /** @type {number} */ (measuredOrder[i]),
      ];
    }
    const hubOrder = [...Array.from({ length: LATENCY_WARMUP }, (_, i) => i % hubs.length), ...measuredOrder];
    const hubsCpuMs = () => hubs.map((hub) => cpuMs(hub.child.pid) ?? Number.NaN);
    const latencyCpu = hubsCpuMs();
    const latencyStart = performance.now();
    let pairs = 0;
    for (; pairs < LATENCY_WARMUP + LATENCY_N; pairs++) {
      if (pairs > LATENCY_WARMUP && performance.now() - latencyStart > LATENCY_BUDGET_S * 1000) break;
      const hubIndex = /** @type {number} */ (hubOrder[pairs]);
      const url = /** @type {string} */ (urls[hubIndex]);
      const measured = pairs >= LATENCY_WARMUP;
      // Which goes first alternates every two pairs, so that neither always follows the other.
      for (const kind of pairs % 4 < 2 ? ['webhook', 'manual'] : ['manual', 'webhook']) {
        if (kind === 'webhook') {
          const sent = delivery(`ping-${tag}-${pairs}`, 1 + pairs, 'ping');
          const r = await round(() =>
            send(url, 'POST', '/api/v1/github/webhook', { agent, headers: sent.headers, body: sent.body }),
          );
          check(r.answer.status === 202, `delivery: ${r.answer.status} ${r.answer.text}`);
          const [row] = await sql`
            select r.id, extract(epoch from r.created_at - d.received_at) * 1000 as wait
            from github_deliveries d join trigger_runs r on r.delivery_key = 'github:' || d.delivery_id
            where d.delivery_id = ${sent.id}`;
          check(row?.id === r.run, `the long-poll answered ${r.run}, not the delivery's run ${row?.id}`);
          if (measured)
            latency.webhook.push({
              hub: hubIndex,
              answerMs: r.answerMs,
              assignedMs: r.assignedMs,
              waitMs: Number(row.wait),
            });
        } else {
          const body = JSON.stringify({
            projectSlug: 'app',
            trigger: 'ping',
            actor: LOGIN,
            deliveryKey: `ping-${tag}-${pairs}`,
            input: 'please look at it',
          });
          const r = await round(() =>
            send(url, 'POST', '/api/v1/manual-runs', {
              agent,
              headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
              body,
            }),
          );
          check(r.answer.status === 200, `dispatch: ${r.answer.status} ${r.answer.text}`);
          const dispatched = JSON.parse(r.answer.text);
          check(dispatched.triggerRunId === r.run, `the long-poll answered ${r.run}, not ${dispatched.triggerRunId}`);
          if (measured) latency.manual.push({ hub: hubIndex, answerMs: r.answerMs, assignedMs: r.assignedMs });
        }
      }
    }
    const latencySeconds = (performance.now() - latencyStart) / 1000;
    const latencyCpuShare = hubsCpuMs().map(
      (ms, i) => (ms - /** @type {number} */ (latencyCpu[i])) / (latencySeconds * 10),
    );
    const sinkWrites = sinks.map((sink) => sink.writes.length);

    // 2. The burst: BURST deliveries paced evenly over a second, alternating hubs, each on a
    // connection of its own if need be (as GitHub's many senders would).
    const burstAgent = new Agent({ keepAlive: true, maxSockets: Infinity });
    cleanups.push(() => burstAgent.destroy());
    const burst = Array.from({ length: BURST }, (_, i) => delivery(`burst-${tag}-${i}`, 10_000 + i, 'burst'));
    // Connections open before the burst (as a busy hub has them), with one delivery ignored by the hub.
    await Promise.all(
      Array.from({ length: 64 }, (_, i) =>
        send(/** @type {string} */ (urls[i % urls.length]), 'POST', '/api/v1/github/webhook', {
          agent: burstAgent,
          ...(() => {
            const body = JSON.stringify({ zen: 'Warm.', hook_id: i });
            return {
              body,
              headers: {
                'content-type': 'application/json',
                'x-github-event': 'ping',
                'x-github-delivery': `warm-${tag}-${i}`,
                'x-hub-signature-256': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`,
              },
            };
          })(),
        }),
      ),
    );
    const burstStart = performance.now();
    const burstStartedAt = Date.now();
    const burstAnswers = await Promise.all(
      burst.map(async (sent, i) => {
        const due = burstStart + (i * BURST_SPREAD_MS) / BURST;
        while (performance.now() < due) await sleep(Math.max(0, due - performance.now()));
        const start = performance.now();
        const answer = await send(/** @type {string} */ (urls[i % urls.length]), 'POST', '/api/v1/github/webhook', {
          agent: burstAgent,
          headers: sent.headers,
          body: sent.body,
        });
        return { status: answer.status, ms: answer.at - start, sentAt: start - burstStart, body: answer.text };
      }),
    );
    const lastSentMs = Math.max(...burstAnswers.map((answer) => answer.sentAt));
    const keyPattern = `github:burst-${tag}-%`;
    /** @type {{ runs: number, done: number, allRunsMs: number | undefined, allDoneMs: number | undefined }} */
    const burstProgress = { runs: 0, done: 0, allRunsMs: undefined, allDoneMs: undefined };
    while (performance.now() - burstStart < BURST_WAIT_S * 1000) {
      const [row] = await sql`
        select (select count(*)::int from trigger_runs where delivery_key like ${keyPattern}) as runs,
          (select count(*)::int from github_deliveries where delivery_id like ${`burst-${tag}-%`} and state = 'done') as done`;
      burstProgress.runs = row?.runs;
      burstProgress.done = row?.done;
      if (burstProgress.allRunsMs === undefined && burstProgress.runs >= BURST)
        burstProgress.allRunsMs = performance.now() - burstStart;
      if (burstProgress.done >= BURST) {
        burstProgress.allDoneMs = performance.now() - burstStart;
        break;
      }
      await sleep(50);
    }
    // A second longer, for a run started twice.
    await sleep(1_000);
    const [burstRuns] = await sql`
      select count(*)::int as runs, count(distinct delivery_key)::int as keys,
        count(*) filter (where source = 'github')::int as github,
        extract(epoch from max(created_at) - ${new Date(burstStartedAt)}::timestamptz) * 1000 as last_created
      from trigger_runs where delivery_key like ${`github:burst-${tag}-%`}`;
    const outcomes = await sql`
      select state, outcome, count(*)::int as n from github_deliveries where delivery_id like ${`burst-${tag}-%`}
      group by 1, 2 order by 3 desc`;
    const burstMs = sorted(burstAnswers.map((answer) => answer.ms));
    /** @type {Record<string, number>} */
    const burstStatuses = {};
    for (const answer of burstAnswers) {
      const status = `${answer.status} ${answer.status === 202 ? JSON.parse(answer.body).status : ''}`.trim();
      burstStatuses[status] = (burstStatuses[status] ?? 0) + 1;
    }
    const pendingReports = await sql`
      select (select count(*)::int from github_messages where sent_at is null) as messages,
        (select count(*)::int from github_runs where started_reported_at is null) as comments`;

    // 3. Signed deliveries quietly and during each flood, in interleaved blocks.
    const victim = new Agent({ keepAlive: true, maxSockets: 1 });
    cleanups.push(() => victim.destroy());
    let victimCount = 0;
    /** Times `n` signed deliveries, one after another, alternating hubs. @param {number} n */
    const deliverSome = async (n) => {
      const times = [];
      for (let i = 0; i < n; i++) {
        const index = victimCount++;
        const sent = delivery(`victim-${tag}-${index}`, 20_000 + index, 'burst');
        const start = performance.now();
        const answer = await send(/** @type {string} */ (urls[index % urls.length]), 'POST', '/api/v1/github/webhook', {
          agent: victim,
          headers: sent.headers,
          body: sent.body,
        });
        check(answer.status === 202, `signed delivery during the flood test: ${answer.status} ${answer.text}`);
        times.push(answer.at - start);
      }
      return times;
    };
    await deliverSome(20); // warm-up, unmeasured
    /** @typedef {{ times: number[], statuses: Record<string, number>, requests: number, floodSeconds: number, seconds: number, hubCpuMs: number, hubSysMs: number, settleCpuMs: number, settleSeconds: number, settleRequests: number, flooderCpuMs: number, machineBusy: number, machineTotal: number }} FloodRow */
    /** @returns {FloodRow} */
    const floodRow = () => ({
      times: [],
      statuses: {},
      requests: 0,
      floodSeconds: 0,
      seconds: 0,
      hubCpuMs: 0,
      hubSysMs: 0,
      settleCpuMs: 0,
      settleSeconds: 0,
      settleRequests: 0,
      flooderCpuMs: 0,
      machineBusy: 0,
      machineTotal: 0,
    });
    /** @type {Record<'quiet' | FloodKind, FloodRow>} */
    const floodRows = { quiet: floodRow(), unsigned: floodRow(), wrong: floodRow(), 'wrong-chunked': floodRow() };
    /**
     * FLOOD_BLOCK signed deliveries timed into `row`, with the CPU the hubs, the flooder
     * (`flooderPid`) and the whole machine spent meanwhile, after a second without them (for the
     * flood to get going, or the last one's lingering connections to end, and for the hubs' CPU
     * spent on the flood alone).
     * @param {FloodRow} row @param {import('node:child_process').ChildProcess | undefined} flooder
     */
    const timeBlock = async (row, flooder) => {
      const flooderPid = flooder?.pid;
      /** The flooder's requests so far. */
      const floodCount = () =>
        flooder === undefined
          ? Promise.resolve(0)
          : new Promise((resolve) => {
              const listen = (/** @type {any} */ message) => {
                if (typeof message?.count !== 'number') return;
                flooder.off('message', listen);
                resolve(message.count);
              };
              flooder.on('message', listen);
              flooder.send('count');
            });
      const settleCpu = hubs.reduce((sum, hub) => sum + (cpuMs(hub.child.pid) ?? Number.NaN), 0);
      const settleCount = await floodCount();
      const settleStart = performance.now();
      await sleep(FLOOD_SETTLE_MS);
      row.settleRequests += /** @type {number} */ (await floodCount()) - /** @type {number} */ (settleCount);
      row.settleCpuMs += hubs.reduce((sum, hub) => sum + (cpuMs(hub.child.pid) ?? Number.NaN), 0) - settleCpu;
      row.settleSeconds += (performance.now() - settleStart) / 1000;
      const usage = () => ({
        hubs: hubs.reduce((sum, hub) => sum + (cpuMs(hub.child.pid) ?? Number.NaN), 0),
        hubsSys: hubs.reduce((sum, hub) => sum + (cpuMs(hub.child.pid, 'system') ?? Number.NaN), 0),
        flooder: flooderPid === undefined ? 0 : (cpuMs(flooderPid) ?? Number.NaN),
        machine: machineTicks(),
      });
      const before = usage();
      const start = performance.now();
      row.times.push(...(await deliverSome(FLOOD_BLOCK)));
      row.seconds += (performance.now() - start) / 1000;
      const after = usage();
      row.hubCpuMs += after.hubs - before.hubs;
      row.hubSysMs += after.hubsSys - before.hubsSys;
      row.flooderCpuMs += after.flooder - before.flooder;
      row.machineBusy += after.machine.busy - before.machine.busy;
      row.machineTotal += after.machine.total - before.machine.total;
    };
    const blocks = Math.ceil(FLOOD_SAMPLES / FLOOD_BLOCK);
    for (let cycle = 0; cycle < blocks; cycle++) {
      // Each cycle in another order, so that no condition always follows the same one.
      /** @type {('quiet' | FloodKind)[]} */
      const kinds = ['quiet', ...FLOODS.map(([kind]) => kind)];
      for (let shift = 0; shift < cycle % kinds.length; shift++) kinds.push(/** @type {'quiet'} */ (kinds.shift()));
      for (const kind of kinds) {
        const row = floodRows[kind];
        if (kind === 'quiet') {
          await timeBlock(row, undefined);
          continue;
        }
        const child = fork(fileURLToPath(import.meta.url), ['--flood', kind, urls.join(','), String(FLOOD_CLIENTS)], {
          stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        });
        const stopped = new Promise((resolve) => child.on('exit', resolve));
        cleanups.push(async () => {
          if (child.exitCode === null) child.kill();
          await stopped;
        });
        /** @type {Promise<{ statuses: Record<string, number>, requests: number }>} */
        const report = new Promise((resolve) =>
          child.on('message', (/** @type {any} */ message) => message?.statuses !== undefined && resolve(message)),
        );
        await new Promise((resolve) => child.once('message', resolve));
        const floodStart = performance.now();
        await timeBlock(row, child);
        child.send('stop');
        row.floodSeconds += (performance.now() - floodStart) / 1000;
        const { statuses, requests } = await report;
        await stopped;
        row.requests += requests;
        for (const [status, n] of Object.entries(statuses)) row.statuses[status] = (row.statuses[status] ?? 0) + n;
      }
    }

    // The report.
    const load = loadavg()
      .map((value) => value.toFixed(2))
      .join(' ');
    console.log(
      `bench:github: ${hubs.length} hub instance(s)${hubRoot === root ? '' : ` of ${hubRoot}`}, ${database.note}; loopback, node ${process.version}, load average ${load}`,
    );
    console.log(
      `(GitHub's API: bench/github-sink.js, one per hub; payloads: GitHub's issue_comment.created example, ${Buffer.byteLength(burst[0]?.body ?? '')} bytes)\n`,
    );

    const p = (/** @type {number[]} */ values, /** @type {number} */ q) => quantile(sorted(values), q);
    const webhookMs = latency.webhook.map((r) => r.assignedMs);
    const manualMs = latency.manual.map((r) => r.assignedMs);
    console.log(
      `1. Request -> daemon's long-poll answers with the run (long-poll on hub 1), ${latency.webhook.length} of each after ${LATENCY_WARMUP} unmeasured, interleaved; ${latencySeconds.toFixed(0)} s\n`,
    );
    /** @type {(string | number)[][]} */
    const latencyTable = [
      ['request', 'sent to', 'n', 'answer p50', 'p50 ms', 'p99 ms', 'max ms', 'mean ms', 'stored -> run p50/p99'],
    ];
    for (const [kind, rows] of /** @type {const} */ ([
      ['webhook (202)', latency.webhook],
      ['manual dispatch (200)', latency.manual],
    ])) {
      for (const hub of [undefined, ...hubs.map((_, index) => index)]) {
        if (hub !== undefined && hubs.length === 1) continue;
        const picked = rows.filter((r) => hub === undefined || r.hub === hub);
        const times = picked.map((r) => r.assignedMs);
        const waits = picked.map((r) => ('waitMs' in r ? r.waitMs : Number.NaN));
        latencyTable.push([
          kind,
          hub === undefined ? 'either hub' : `hub ${hub + 1}${hub === 0 ? ' (= poll)' : ''}`,
          picked.length,
          ms(
            p(
              picked.map((r) => r.answerMs),
              0.5,
            ),
          ),
          ms(p(times, 0.5)),
          ms(p(times, 0.99)),
          ms(Math.max(...times)),
          ms(times.reduce((sum, value) => sum + value, 0) / times.length),
          kind.startsWith('webhook') ? `${ms(p(waits, 0.5))} / ${ms(p(waits, 0.99))}` : '',
        ]);
      }
    }
    console.log(table(latencyTable, ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r']));
    console.log(
      "(ms from the request's start; \"stored -> run\": the run's created_at after the delivery's received_at, PostgreSQL's clock)",
    );
    const hubSplit = hubs.length === 2 ? latency.webhook.filter((r) => r.hub === 0).map((r) => r.assignedMs) : [];
    const hubSplit2 = hubs.length === 2 ? latency.webhook.filter((r) => r.hub === 1).map((r) => r.assignedMs) : [];
    const latencyRatio50 = p(webhookMs, 0.5) / p(manualMs, 0.5);
    const latencyRatio99 = p(webhookMs, 0.99) / p(manualMs, 0.99);
    const writeGaps = sinks.map((sink) => {
      const gaps = sink.writes.slice(1).map((at, i) => at - /** @type {number} */ (sink.writes[i]));
      return gaps.length === 0 ? Number.NaN : p(gaps, 0.5);
    });
    // Where the waits fall: a worker free at once, or one in the middle of reporting to GitHub.
    const bands = (/** @type {number[]} */ waits) =>
      `${waits.filter((wait) => wait < 100).length} under 100 ms, ${waits.filter((wait) => wait >= 100 && wait < 2000).length} 0.1-2 s, ${waits.filter((wait) => wait >= 2000).length} over 2 s`;
    console.log(
      `stored -> run: ${bands(latency.webhook.map((r) => r.waitMs))}${hubs.length === 2 ? `; sent to hub 1: ${bands(latency.webhook.filter((r) => r.hub === 0).map((r) => r.waitMs))}; to hub 2: ${bands(latency.webhook.filter((r) => r.hub === 1).map((r) => r.waitMs))}` : ''}`,
    );
    console.log(
      `reporting meanwhile: ${sinkWrites.map((n, i) => `hub ${i + 1} ${n} writes to GitHub`).join(', ')} (reactions, comments, comment edits); hubs' CPU: ${latencyCpuShare.map((share, i) => `hub ${i + 1} ${share.toFixed(0)} %`).join(', ')} of a core\n`,
    );

    console.log(
      `2. Burst: ${BURST} signed deliveries (distinct X-GitHub-Delivery) sent over ${BURST_SPREAD_MS} ms, alternating hubs\n`,
    );
    const over = burstMs.filter((value) => value > ANSWER_TARGET_MS).length;
    console.log(
      table(
        [
          ['answers', 'p50 ms', 'p99 ms', 'max ms', 'over 1 s', 'last sent at'],
          [
            Object.entries(burstStatuses)
              .map(([status, n]) => `${n} ${status}`)
              .join(', '),
            ms(quantile(burstMs, 0.5)),
            ms(quantile(burstMs, 0.99)),
            ms(burstMs.at(-1) ?? Number.NaN),
            over,
            `${lastSentMs.toFixed(0)} ms`,
          ],
        ],
        ['l', 'r', 'r', 'r', 'r', 'r'],
      ),
    );
    const allRuns = burstProgress.allRunsMs;
    const allDone = burstProgress.allDoneMs;
    console.log(
      `\nruns: ${burstRuns?.runs} (${burstRuns?.github} of source github), ${burstRuns?.keys} distinct delivery keys, for ${BURST} deliveries; ` +
        `all runs existed ${allRuns === undefined ? `NOT within ${BURST_WAIT_S} s (${burstProgress.runs} did)` : `${(allRuns / 1000).toFixed(2)} s after the burst's start`}; ` +
        `all deliveries done ${allDone === undefined ? `NOT within ${BURST_WAIT_S} s (${burstProgress.done} were)` : `after ${(allDone / 1000).toFixed(2)} s`}; ` +
        `last run created ${(Number(burstRuns?.last_created) / 1000).toFixed(2)} s after the start (PostgreSQL's clock)`,
    );
    console.log(`deliveries: ${outcomes.map((row) => `${row.n} ${row.state}: ${row.outcome}`).join('; ')}`);
    console.log(
      `owed to GitHub after it: ${pendingReports[0]?.messages} reactions or replies unsent, ${pendingReports[0]?.comments} runs without their first comment\n`,
    );

    console.log(
      `3. Signed deliveries' answer (202) while ${FLOOD_CLIENTS} clients post ${FLOOD_BYTES / 1024 / 1024} MiB bodies without a valid signature to both hubs (flooders at niceness ${FLOOD_NICE}); blocks of ${FLOOD_BLOCK}, interleaved\n`,
    );
    const quietTimes = floodRows.quiet.times;
    /** @type {(string | number)[][]} */
    const floodTable = [
      [
        'condition',
        'n',
        'p50 ms',
        'p99 ms',
        'max ms',
        'p99 / quiet',
        'hubs CPU % (system)',
        'flooder CPU %',
        'machine busy %',
        'hubs +CPU ms / flood req',
        'flood answers (req/s)',
      ],
    ];
    for (const [kind, label] of [/** @type {['quiet', string]} */ (['quiet', 'quiet']), ...FLOODS]) {
      const row = floodRows[kind];
      floodTable.push([
        label,
        row.times.length,
        ms(p(row.times, 0.5)),
        ms(p(row.times, 0.99)),
        ms(Math.max(...row.times)),
        `${(p(row.times, 0.99) / p(quietTimes, 0.99)).toFixed(2)}x`,
        `${((row.hubCpuMs / (row.seconds * 1000)) * 100).toFixed(0)} (${((row.hubSysMs / (row.seconds * 1000)) * 100).toFixed(0)})`,
        kind === 'quiet' ? '' : ((row.flooderCpuMs / (row.seconds * 1000)) * 100).toFixed(0),
        row.machineTotal > 0 ? ((row.machineBusy / row.machineTotal) * 100).toFixed(0) : '-',
        kind === 'quiet'
          ? ''
          : (
              (row.settleCpuMs - (floodRows.quiet.settleCpuMs / floodRows.quiet.settleSeconds) * row.settleSeconds) /
              row.settleRequests
            ).toFixed(2),
        kind === 'quiet'
          ? ''
          : `${Object.entries(row.statuses)
              .sort(([, a], [, b]) => b - a)
              .map(([status, n]) => `${n} ${status}`)
              .join(', ')} (${(row.requests / row.floodSeconds).toFixed(0)}/s)`,
      ]);
    }
    console.log(table(floodTable, ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'l']));
    console.log(
      "(CPU %: while timed, 100 = one core; machine busy %: both cores, everything on them; +CPU ms / flood req: the hubs' CPU during the flood alone (the second before each block) over the same with no flood, per flood request answered meanwhile; flood answers: over the timed blocks and the settle second before each; EPIPE/ECONNRESET: the upload cut after the answer)\n",
    );

    const verdict = (/** @type {boolean} */ met) => (met ? 'met' : 'MISSED');
    const exactlyOnce = burstRuns?.runs === BURST && burstRuns?.keys === BURST && burstRuns?.github === BURST;
    console.log('Summary\n');
    console.log(
      table(
        [
          ['figure', 'value', 'target', ''],
          [
            'webhook -> assignment p50 / manual p50',
            `${ms(p(webhookMs, 0.5))} / ${ms(p(manualMs, 0.5))} ms = ${latencyRatio50.toFixed(2)}x`,
            '(none)',
            '',
          ],
          [
            'webhook -> assignment p99 / manual p99',
            `${ms(p(webhookMs, 0.99))} / ${ms(p(manualMs, 0.99))} ms = ${latencyRatio99.toFixed(2)}x`,
            `<= ${LATENCY_TARGET}x`,
            verdict(latencyRatio99 <= LATENCY_TARGET),
          ],
          ...(hubs.length === 2
            ? [
                [
                  'webhook p50 / p99 sent to hub 1 vs hub 2',
                  `${ms(p(hubSplit, 0.5))} / ${ms(p(hubSplit, 0.99))} vs ${ms(p(hubSplit2, 0.5))} / ${ms(p(hubSplit2, 0.99))} ms`,
                  '(none)',
                  '',
                ],
              ]
            : []),
          [
            'burst: 202 answer p50 / p99 / max',
            `${ms(quantile(burstMs, 0.5))} / ${ms(quantile(burstMs, 0.99))} / ${ms(burstMs.at(-1) ?? Number.NaN)} ms, ${over} over 1 s`,
            'every 202 within 1 s',
            verdict(over === 0 && burstStatuses['202 queued'] === BURST),
          ],
          [
            'burst: runs started exactly once',
            `${burstRuns?.runs} runs, ${burstRuns?.keys} distinct keys`,
            `${BURST}, none lost`,
            verdict(exactlyOnce),
          ],
          [
            'burst: all runs existed after',
            allRuns === undefined ? `not within ${BURST_WAIT_S} s` : `${(allRuns / 1000).toFixed(2)} s`,
            '(none)',
            '',
          ],
          ...FLOODS.map(([kind, label]) => {
            const ratio = p(floodRows[kind].times, 0.99) / p(quietTimes, 0.99);
            return [
              `${label.replace('flood: ', 'flood (')}): p99 / quiet p99`,
              `${ms(p(floodRows[kind].times, 0.99))} / ${ms(p(quietTimes, 0.99))} ms = ${ratio.toFixed(2)}x`,
              `<= ${FLOOD_TARGET}x`,
              verdict(ratio <= FLOOD_TARGET),
            ];
          }),
        ],
        ['l', 'l', 'l', 'l'],
      ),
    );
    console.log(
      `\nwrites to GitHub's API, median gap between two of one hub's: ${writeGaps.map((gap, i) => `hub ${i + 1} ${ms(gap)} ms`).join(', ')}; calls: ${sinks
        .map((sink, i) => `hub ${i + 1}: ${[...sink.calls].map(([name, n]) => `${n} ${name}`).join(', ')}`)
        .join('; ')}`,
    );
    // The hubs stopped here, timed: each worker finishes the look at what it owes GitHub that it
    // is in before the hub exits, so a backlog of reports can hold a stop up.
    const stops = await Promise.all(hubs.map((hub) => stopTimed(hub.child, STOP_GRACE_S)));
    console.log(
      `hubs stopped (SIGTERM) in ${stops
        .map(
          (stop, i) =>
            `hub ${i + 1} ${stop.killed ? `NOT within ${STOP_GRACE_S} s: killed` : `${stop.seconds.toFixed(1)} s`}`,
        )
        .join(', ')}`,
    );
    if (CPU_PROF_DIR !== undefined)
      console.log(
        `CPU profiles of the hubs: ${CPU_PROF_DIR}${stops.some((stop) => stop.killed) ? ' (not those of killed hubs)' : ''}`,
      );
    console.log(`(${((performance.now() - startedAt) / 1000).toFixed(0)} s)`);
  } catch (error) {
    if (interrupted()) await new Promise(() => {}); // the SIGINT handler cleans up and exits
    console.error(error);
    printProcesses(processes);
    process.exitCode = 1;
  } finally {
    await cleanUp();
  }
}

// A flood runs in a child process of its own (`--flood <kind> <url,url> <clients>`), as in
// bench/abuse.bench.js, so that writing its bodies never delays the timed requests.
if (process.argv[2] === '--flood') {
  await flood(
    /** @type {FloodKind} */ (process.argv[3]),
    /** @type {string} */ (process.argv[4]).split(','),
    Number(process.argv[5]),
  );
} else {
  await main();
}
