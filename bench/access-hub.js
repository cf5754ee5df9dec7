// @ts-check
// The hub of bench/access.bench.js, set up through its front doors: the printed setup link, the
// operator API, a daemon kept online and a queued run, `hub login`'s device grant approved in the
// dashboard; and an output stream held open.
import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { performance } from 'node:perf_hooks';
import { postgres } from './database.js';
import { check } from './report.js';

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

/**
 * @param {string} url
 * @param {string} method
 * @param {string} path
 * @param {{ token?: string, json?: unknown, form?: Record<string, string>, headers?: Record<string, string> }} [options]
 */
export async function call(url, method, path, options = {}) {
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
export const expectOk = (answer, what) =>
  check(answer.status < 400, `${what}: ${answer.status} ${answer.text.slice(0, 300)}`);

/**
 * An output stream held open: resolves once the hub answered; `ended()` and `endedAt` once an `end` event came.
 * @param {string} url
 * @param {string} path
 * @param {string} token
 * @returns {Promise<{ status: number, endedAt: Promise<number>, ended: () => boolean, close: () => void }>}
 */
export function openStream(url, path, token) {
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
export async function setUp(url, adminToken, output, databaseUrl) {
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
export async function queuedRun(url, key) {
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
export async function cliCredential(url, cookie, organizationId) {
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
