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
import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { createDatabase, postgres } from './database.js';
import { startProcess } from './process.js';
import { check, cleanupOnExit, quantile, table } from './report.js';

const CONNECTIONS = 16;
const DURATION_S = Number(process.env.HUB_BENCH_ACCESS_DURATION_S || 6);
const WARMUP_S = 1;
const ROUNDS = 3;
const STREAMS = Number(process.env.HUB_BENCH_ACCESS_STREAMS || 500);
const ENDINGS = 20;
const PASSWORD = 'correct horse battery staple';
const GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const CONFIGURATION = `
environments:
  - { name: laptop, kind: daemon, daemon: runner, cwd: /tmp/work }
triggers:
  - name: fix-tests
    on: { manual.run: {} }
    max_runtime: 2h
    filters: { from_users: [dev-lead] }
    steps:
      - { id: fix, environment: laptop, agent: { provider: claude }, prompt: [ { text: "Fix {{ prompt }}" } ] }
`;
const root = new URL('..', import.meta.url).pathname;
const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (/** @type {number[]} */ values) =>
  quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  );

/**
 * @param {string} url
 * @param {string} method
 * @param {string} path
 * @param {{ token?: string, json?: unknown, form?: Record<string, string>, headers?: Record<string, string> }} [options]
 */
async function call(url, method, path, options = {}) {
  /** @type {Record<string, string>} */
  const headers = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body;
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.json);
  } else if (options.form !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(options.form).toString();
  }
  const response = await fetch(url + path, { method, headers, body, redirect: 'manual' });
  const text = await response.text();
  let parsed;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

/** @param {{ status: number, text: string }} answer @param {string} what */
const expectOk = (answer, what) => check(answer.status < 400, `${what}: ${answer.status} ${answer.text.slice(0, 300)}`);

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

/**
 * An output stream held open: resolves once the hub answered; `ended()` and `endedAt` once an `end` event came.
 * @param {string} url
 * @param {string} path
 * @param {string} token
 * @returns {Promise<{ status: number, endedAt: Promise<number>, ended: () => boolean, close: () => void }>}
 */
function openStream(url, path, token) {
  return new Promise((resolve, reject) => {
    /** @type {(at: number) => void} */
    let end = () => {};
    let ended = false;
    const endedAt = new Promise((done) => (end = done));
    const req = httpRequest(
      `${url}${path}`,
      { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } },
      (res) => {
        res.setEncoding('utf8');
        let buffer = '';
        res.on('data', (text) => {
          buffer += text;
          if (!ended && /^event: end$/m.test(buffer)) {
            ended = true;
            end(performance.now());
          }
          buffer = buffer.slice(-64);
        });
        res.on('error', () => {});
        resolve({ status: res.statusCode ?? 0, endedAt, ended: () => ended, close: () => req.destroy() });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/**
 * The hub, set up: the owner's session, the organization's id, an API key, a queued run's output path.
 * @param {string} url
 * @param {string} adminToken
 * @param {string} output what the hub printed
 * @param {string} databaseUrl
 */
async function setUp(url, adminToken, output, databaseUrl) {
  const link = /Set up the hub \(one time; also in [^)]*\): (\S+)/.exec(output)?.[1];
  check(link !== undefined, `no setup link in:\n${output}`);
  const token = new URL(link).searchParams.get('token') ?? '';
  const owner = { name: 'Ada', email: 'ada@example.com', password: PASSWORD, slug: 'acme', organizationName: 'Acme' };
  const done = await call(url, 'POST', '/setup', { form: { token, ...owner }, headers: { origin: url } });
  check(done.status === 303, `setup: ${done.status} ${done.text}`);
  const cookie = (done.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const admin = { token: adminToken };
  expectOk(
    await call(url, 'POST', '/api/admin/v1/organizations/acme/projects', {
      ...admin,
      json: { slug: 'app', name: 'App' },
    }),
    'project',
  );
  const scopes = ['projects:read', 'configuration:install', 'daemons:enroll', 'runs:dispatch', 'runs:read'];
  const key = await call(url, 'POST', '/api/admin/v1/organizations/acme/api-keys', {
    ...admin,
    json: { name: 'ops', scopes },
  });
  expectOk(key, 'key');
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  const [organization] = await sql`select id from organizations where slug = 'acme'`;
  await sql.end();
  return {
    cookie,
    organizationId: /** @type {string} */ (organization?.id),
    key: /** @type {string} */ (key.body.secret),
  };
}

/**
 * A daemon enrolled with `key`, kept online, and a queued run: its output's path, and how to stop the heartbeats.
 * @param {string} url
 * @param {string} key
 */
async function queuedRun(url, key) {
  const tokenAnswer = await call(url, 'POST', '/api/v1/daemons/enrollment-tokens', { token: key });
  expectOk(tokenAnswer, 'enrollment token');
  const pair = generateKeyPairSync('ed25519');
  const x = /** @type {string} */ (pair.publicKey.export({ format: 'jwk' }).x);
  const enrolled = await call(url, 'POST', '/api/v1/daemons/enroll', {
    json: {
      token: tokenAnswer.body.token,
      name: 'runner',
      publicKey: { kty: 'OKP', crv: 'Ed25519', x },
      runtimes: [{ provider: 'claude' }],
    },
  });
  expectOk(enrolled, 'enroll');
  const beat = async () => {
    const raw = '{}';
    const timestamp = String(Date.now());
    const nonce = randomBytes(18).toString('base64url');
    const digest = createHash('sha256').update(raw).digest('base64url');
    const message = `POST\n/api/v1/daemon/heartbeat\n${timestamp}\n${nonce}\n${digest}`;
    const heartbeat = await fetch(`${url}/api/v1/daemon/heartbeat`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'hub-daemon': enrolled.body.daemonId,
        'hub-timestamp': timestamp,
        'hub-nonce': nonce,
        'hub-signature': sign(null, Buffer.from(message), pair.privateKey).toString('base64url'),
      },
      body: raw,
    });
    check(heartbeat.status < 300, `heartbeat: ${heartbeat.status}`);
  };
  await beat();
  // Kept online for the whole run: a run whose daemon went offline ends, and so would its streams.
  const beating = setInterval(() => void beat().catch(() => {}), 5_000);
  expectOk(
    await call(url, 'POST', '/api/v1/configurations/install', {
      token: key,
      json: { projectSlug: 'app', yaml: CONFIGURATION },
    }),
    'install',
  );
  const run = await call(url, 'POST', '/api/v1/manual-runs', {
    token: key,
    json: { projectSlug: 'app', trigger: 'fix-tests', actor: 'dev-lead', deliveryKey: randomBytes(8).toString('hex') },
  });
  expectOk(run, 'dispatch');
  const view = await call(url, 'GET', `/api/v1/runs/${run.body.triggerRunId}`, { token: key });
  const path = `/api/v1/runs/${run.body.triggerRunId}/executions/${view.body.executions[0].executionId}/output`;
  return { path, stop: () => clearInterval(beating) };
}

/**
 * `hub login`: the device grant, approved by the signed-in owner in the dashboard, redeemed.
 * @param {string} url
 * @param {string} cookie
 * @param {string} organizationId
 */
async function cliCredential(url, cookie, organizationId) {
  const started = await call(url, 'POST', '/oauth/device_authorization', {
    form: { client_id: 'hub-cli', hostname: 'bench' },
  });
  expectOk(started, 'device authorization');
  const approved = await call(url, 'POST', '/device/approve', {
    form: { user_code: started.body.user_code, organization: organizationId },
    headers: { origin: url, cookie },
  });
  check(approved.status < 400, `approve: ${approved.status}`);
  const token = await call(url, 'POST', '/oauth/token', {
    form: { grant_type: GRANT, device_code: started.body.device_code, client_id: 'hub-cli' },
  });
  expectOk(token, 'token');
  return /** @type {string} */ (token.body.access_token);
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
