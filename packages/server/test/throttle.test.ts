// Throttling (issue 14) on real hubs: two instances on one database count failures together, a
// valid credential is always served, and past a limit the answer is 429 with Retry-After and the
// RateLimit headers. Requests name their client address with X-Forwarded-For (the hubs trust the
// loopback proxy), so each test counts against addresses of its own.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, setUp, type Answer } from './support/client.js';
import { TestDaemon } from './support/daemon.js';
import { databases, hubOn, startHub, type RunningHub } from './support/hub.js';

const WINDOW = 3600;
const LIMITS = {
  HUB_TRUST_PROXY: 'loopback',
  HUB_THROTTLE_AUTH_ADDRESS: `5/${WINDOW}`,
  HUB_THROTTLE_AUTH_KEY: `3/${WINDOW}`,
  HUB_THROTTLE_ENROLL_ADDRESS: `3/${WINDOW}`,
  HUB_THROTTLE_DEVICE_ADDRESS: `3/${WINDOW}`,
};
const GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

let addresses = 0;
/** An address of the documentation range no other test uses. */
const freshAddress = () => `198.51.100.${++addresses}`;
const from = (address: string) => ({ 'x-forwarded-for': address });

/** A well-formed credential (right length and checksum) that the hub never issued, starting with `prefix`. */
function forged(prefix: string): string {
  const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  const kind = /^hub_([a-z]+)_/.exec(prefix)?.[0] as string;
  let body = prefix;
  for (const byte of randomBytes(32)) if (body.length < kind.length + 32) body += BASE62[byte % 62];
  let value = crc32(body);
  let sum = '';
  for (let i = 0; i < 6; i++) {
    sum = BASE62[value % 62] + sum;
    value = Math.floor(value / 62);
  }
  return body + sum;
}

function expectCounted(answer: Answer, policy: string, limit: number, remaining: number): void {
  expect(answer.headers.get('ratelimit-policy')).toBe(`"${policy}";q=${limit};w=${WINDOW}`);
  const state = /^"([a-z-]+)";r=(\d+);t=(\d+)$/.exec(answer.headers.get('ratelimit') ?? '');
  expect(state?.slice(1, 3)).toEqual([policy, String(remaining)]);
  expect(Number(state?.[3])).toBeGreaterThanOrEqual(1);
  expect(Number(state?.[3])).toBeLessThanOrEqual(WINDOW);
}

function expectThrottled(answer: Answer, policy: string, limit: number, window = WINDOW): void {
  expect(answer.status).toBe(429);
  expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(answer.body).toMatchObject({ status: 429, code: 'too_many_requests' });
  const retryAfter = Number(answer.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= window).toBe(true);
  expect(answer.headers.get('ratelimit-policy')).toBe(`"${policy}";q=${limit};w=${window}`);
  expect(answer.headers.get('ratelimit')).toBe(`"${policy}";r=0;t=${retryAfter}`);
}

describe.each(databases)('throttling across two hub instances on the %s database', (kind) => {
  let one: Awaited<ReturnType<typeof hubOn>>;
  let two: RunningHub;
  let ctx: Awaited<ReturnType<typeof setUp>>;
  /** Each attempt on the other instance than the one before. */
  const hubs = () => [one, two] as const;
  const on = (i: number) => hubs()[i % 2] as RunningHub;

  beforeAll(async () => {
    one = await hubOn(kind, LIMITS);
    const databaseUrl = one.databaseUrl ?? readFileSync(join(one.dataDir, 'database-url'), 'utf8').trim();
    two = await startHub({ databaseUrl, env: { ...LIMITS, HUB_ADMIN_TOKEN: one.adminToken } });
    ctx = await setUp(one);
  }, 180_000);
  afterAll(async () => {
    await two?.stop();
    await one?.close();
  });

  it('counts failed keys from one address on both instances, then answers 429 on either; a valid key is still served', async () => {
    const address = freshAddress();
    // Malformed keys count against the address only, so RateLimit shows the address's policy.
    for (let i = 0; i < 5; i++) {
      const answer = await call(on(i), 'GET', '/api/v1/projects', { token: `not-a-key-${i}`, headers: from(address) });
      expect(answer.status).toBe(401);
      expect(answer.body.code).toBe('unauthorized');
      expectCounted(answer, 'auth-address', 5, 4 - i);
    }
    for (const hub of hubs()) {
      expectThrottled(
        await call(hub, 'GET', '/api/v1/projects', { token: 'not-a-key', headers: from(address) }),
        'auth-address',
        5,
      );
      // Well-formed keys that were never issued, and the operator token, count there too.
      expectThrottled(
        await call(hub, 'GET', '/api/v1/projects', { token: forged('hub_pk_'), headers: from(address) }),
        'auth-address',
        5,
      );
      expectThrottled(
        await call(hub, 'GET', '/api/admin/v1/organizations', { token: 'wrong', headers: from(address) }),
        'auth-address',
        5,
      );
      const valid = await call(hub, 'GET', '/api/v1/projects', { token: ctx.key, headers: from(address) });
      expect(valid.status).toBe(200);
      expect(valid.headers.get('ratelimit')).toBeNull();
      expect(
        (await call(hub, 'GET', '/api/admin/v1/organizations', { token: one.adminToken, headers: from(address) }))
          .status,
      ).toBe(200);
    }
    // Another address is not throttled.
    const elsewhere = await call(two, 'GET', '/api/v1/projects', { token: 'not-a-key', headers: from(freshAddress()) });
    expect(elsewhere.status).toBe(401);
    expectCounted(elsewhere, 'auth-address', 5, 4);
  });

  it('does not count a request without a credential', async () => {
    const address = freshAddress();
    for (let i = 0; i < 8; i++) {
      const answer = await call(on(i), 'GET', '/api/v1/projects', { headers: from(address) });
      expect(answer.status).toBe(401);
      expect(answer.headers.get('ratelimit')).toBeNull();
    }
    expectCounted(
      await call(one, 'GET', '/api/v1/projects', { token: 'not-a-key', headers: from(address) }),
      'auth-address',
      5,
      4,
    );
  });

  it('counts an IPv6 client by its /64, and an IPv4 one seen as IPv6 as the IPv4 address', async () => {
    const neighbours = ['2001:db8:7:1::1', '2001:db8:7:1:ffff:ffff:ffff:9'];
    for (let i = 0; i < 5; i++) {
      expect(
        (
          await call(on(i), 'GET', '/api/v1/projects', {
            token: 'not-a-key',
            headers: from(neighbours[i % 2] as string),
          })
        ).status,
      ).toBe(401);
    }
    expectThrottled(
      await call(one, 'GET', '/api/v1/projects', { token: 'not-a-key', headers: from('2001:db8:7:1::abcd') }),
      'auth-address',
      5,
    );
    expectCounted(
      await call(one, 'GET', '/api/v1/projects', { token: 'not-a-key', headers: from('2001:db8:7:2::1') }),
      'auth-address',
      5,
      4,
    );

    const v4 = freshAddress();
    for (let i = 0; i < 5; i++)
      expect(
        (
          await call(on(i), 'GET', '/api/v1/projects', {
            token: 'not-a-key',
            headers: from(i % 2 ? v4 : `::ffff:${v4}`),
          })
        ).status,
      ).toBe(401);
    expectThrottled(
      await call(two, 'GET', '/api/v1/projects', { token: 'not-a-key', headers: from(`::ffff:${v4}`) }),
      'auth-address',
      5,
    );
  });

  it('throttles failures naming one key prefix from any address, and still serves that key', async () => {
    const prefix = ctx.key.slice(0, 'hub_pk_'.length + 8);
    for (let i = 0; i < 3; i++) {
      const answer = await call(on(i), 'GET', '/api/v1/projects', {
        token: forged(prefix),
        headers: from(freshAddress()),
      });
      expect(answer.status).toBe(401);
      // Each from a new address: the key's policy is the tighter one.
      expectCounted(answer, 'auth-key', 3, 2 - i);
    }
    for (const hub of hubs()) {
      expectThrottled(
        await call(hub, 'GET', '/api/v1/projects', { token: forged(prefix), headers: from(freshAddress()) }),
        'auth-key',
        3,
      );
      expect(
        (await call(hub, 'GET', '/api/v1/projects', { token: ctx.key, headers: from(freshAddress()) })).status,
      ).toBe(200);
    }
    // A revoked key that a script keeps sending is throttled the same way.
    const old = await setUp(one);
    expect(
      (
        await call(one, 'POST', `/api/admin/v1/organizations/${old.org}/api-keys/${old.keyId}/revoke`, {
          token: one.adminToken,
        })
      ).status,
    ).toBe(200);
    const statuses = [];
    for (let i = 0; i < 4; i++)
      statuses.push(
        (await call(on(i), 'GET', '/api/v1/projects', { token: old.key, headers: from(freshAddress()) })).status,
      );
    expect(statuses).toEqual([401, 401, 401, 429]);
  });

  it('throttles wrong operator tokens per address, and serves the right one', async () => {
    const address = freshAddress();
    for (let i = 0; i < 5; i++) {
      const answer = await call(on(i), 'GET', '/api/admin/v1/organizations', {
        token: `hub_admin_wrong${i}`,
        headers: from(address),
      });
      expect(answer.status).toBe(401);
      expect(answer.headers.get('www-authenticate')).toBe('Bearer realm="hub-admin"');
      expectCounted(answer, 'auth-address', 5, 4 - i);
    }
    expectThrottled(
      await call(two, 'GET', '/api/admin/v1/organizations', { token: 'hub_admin_wrong', headers: from(address) }),
      'auth-address',
      5,
    );
    expect(
      (await call(two, 'GET', '/api/admin/v1/organizations', { token: one.adminToken, headers: from(address) })).status,
    ).toBe(200);
  });

  it('throttles failed enrollments per address, and enrolls with a valid token', async () => {
    const address = freshAddress();
    const enroll = (hub: RunningHub, token: string) =>
      call(hub, 'POST', '/api/v1/daemons/enroll', {
        headers: from(address),
        body: {
          token,
          name: `box-${randomBytes(3).toString('hex')}`,
          publicKey: { kty: 'OKP', crv: 'Ed25519', x: randomBytes(32).toString('base64url') },
          runtimes: [{ provider: 'claude' }],
        },
      });
    const guesses = ['hub_et_nope', forged('hub_et_'), forged('hub_et_')];
    for (const [i, guess] of guesses.entries()) {
      const answer = await enroll(on(i), guess);
      expect(answer.status).toBe(401);
      expect(answer.body.code).toBe('enrollment_token_invalid');
      expectCounted(answer, 'enroll-address', 3, 2 - i);
    }
    expectThrottled(await enroll(one, forged('hub_et_')), 'enroll-address', 3);
    const token = await call(one, 'POST', '/api/v1/daemons/enrollment-tokens', { token: ctx.key });
    expect((await enroll(two, token.body.token)).status).toBe(201);
    // A used token is a failure too.
    expectThrottled(await enroll(one, token.body.token), 'enroll-address', 3);
  });

  it('throttles refused daemon signatures per address, and serves a signed request', async () => {
    const daemon = await TestDaemon.enroll(one, ctx.key, `sig-${randomBytes(3).toString('hex')}`);
    const twin = daemon.at(two);
    const address = freshAddress();
    const badSignature = 'A'.repeat(86);
    for (let i = 0; i < 5; i++) {
      const answer = await (i % 2 ? twin : daemon).signed(
        'POST',
        '/api/v1/daemon/heartbeat',
        {},
        { signature: badSignature, headers: from(address) },
      );
      expect(answer.status).toBe(401);
      expect(answer.headers.get('www-authenticate')).toBe('Hub-Signature realm="hub"');
      expectCounted(answer, 'auth-address', 5, 4 - i);
    }
    expectThrottled(
      await twin.signed('POST', '/api/v1/daemon/heartbeat', {}, { timestamp: '1', headers: from(address) }),
      'auth-address',
      5,
    );
    for (const signer of [daemon, twin])
      expect((await signer.signed('POST', '/api/v1/daemon/heartbeat', {}, { headers: from(address) })).status).toBe(
        200,
      );
  });

  it('counts every device login started per address, and unknown device codes as failed credentials', async () => {
    const form = (hub: RunningHub, path: string, fields: Record<string, string>, address: string) =>
      fetch(`${hub.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...from(address) },
        body: new URLSearchParams(fields),
      }).then(
        async (response) =>
          ({ status: response.status, headers: response.headers, text: '', body: await response.json() }) as Answer,
      );
    const address = freshAddress();
    const started: Answer[] = [];
    for (let i = 0; i < 3; i++) {
      const answer = await form(on(i), '/oauth/device_authorization', { client_id: 'hub-cli' }, address);
      expect(answer.status).toBe(200);
      expectCounted(answer, 'device-address', 3, 2 - i);
      started.push(answer);
    }
    expectThrottled(
      await form(one, '/oauth/device_authorization', { client_id: 'hub-cli' }, address),
      'device-address',
      3,
    );
    expect((await form(two, '/oauth/device_authorization', { client_id: 'hub-cli' }, freshAddress())).status).toBe(200);

    const poller = freshAddress();
    for (let i = 0; i < 5; i++) {
      const answer = await form(
        on(i),
        '/oauth/token',
        { grant_type: GRANT, client_id: 'hub-cli', device_code: randomBytes(32).toString('base64url') },
        poller,
      );
      expect(answer.status).toBe(400);
      expect(answer.body.error).toBe('invalid_grant');
      expectCounted(answer, 'auth-address', 5, 4 - i);
    }
    expectThrottled(
      await form(two, '/oauth/token', { grant_type: GRANT, client_id: 'hub-cli', device_code: 'unknown' }, poller),
      'auth-address',
      5,
    );
    // A device code that exists is served from there: the person has not approved it yet.
    const pending = await form(
      one,
      '/oauth/token',
      { grant_type: GRANT, client_id: 'hub-cli', device_code: started[0]?.body.device_code },
      poller,
    );
    expect(pending).toMatchObject({ status: 400, body: { error: 'authorization_pending' } });
  });

  it("answers the dashboard's throttled sign-in with 429 and Retry-After, on its page", async () => {
    const address = freshAddress();
    const signIn = (hub: RunningHub, i: number) =>
      fetch(`${hub.url}/sign-in`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: hub.url, ...from(address) },
        body: new URLSearchParams({ email: `nobody-${i}@example.com`, password: 'not the password' }),
      });
    // Twenty failures per address in 15 minutes (accounts/sign-in.ts).
    for (let i = 0; i < 20; i++) expect((await signIn(on(i), i)).status).toBe(401);
    for (const hub of hubs()) {
      const throttled = await signIn(hub, 99);
      expect(throttled.status).toBe(429);
      const retryAfter = Number(throttled.headers.get('retry-after'));
      expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 15 * 60).toBe(true);
      const html = await throttled.text();
      expect(html).toContain('action="/sign-in"');
      expect(html).toContain('Too many failed sign-ins');
    }
    // Each failure costs a password hash (scrypt, tens of MB): on a loaded machine 22 of them take more than 30 s.
  }, 120_000);
});

describe('throttling settings', () => {
  it.each([
    ['HUB_THROTTLE_AUTH_ADDRESS', '30'],
    ['HUB_THROTTLE_AUTH_KEY', '0/300'],
    ['HUB_THROTTLE_ENROLL_ADDRESS', '10/86401'],
    ['HUB_THROTTLE_DEVICE_ADDRESS', 'ten/60'],
    ['HUB_TRUST_PROXY', 'true'],
    ['HUB_TRUST_PROXY', '10.0.0.0/33'],
    ['HUB_TRUST_PROXY', '17'],
  ])('refuses %s=%s at start, naming the variable', async (name, value) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'hub-throttle-'));
    try {
      const child = spawn(process.execPath, [fileURLToPath(new URL('../dist/main.js', import.meta.url))], {
        env: { PATH: process.env.PATH ?? '', PORT: '0', HUB_DATA_DIR: dataDir, [name]: value },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      // 'close': everything it printed has been read.
      const code = await new Promise((resolve) => child.on('close', resolve));
      expect(code).toBe(1);
      expect(output).toContain(`${name} must be`);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('a throttling window that ends', () => {
  let hub: Awaited<ReturnType<typeof hubOn>>;

  beforeAll(async () => {
    // No HUB_TRUST_PROXY: X-Forwarded-For is ignored and the socket's address counts.
    hub = await hubOn('external', { HUB_THROTTLE_AUTH_ADDRESS: '2/3' });
  }, 120_000);
  afterAll(async () => hub?.close());

  it('frees the address once the window has passed', async () => {
    const attempt = () => call(hub, 'GET', '/api/v1/projects', { token: 'not-a-key', headers: from(freshAddress()) });
    let answer = await attempt();
    for (let i = 0; i < 20 && answer.status !== 429; i++) answer = await attempt();
    expectThrottled(answer, 'auth-address', 2, 3);
    // Polled, not timed: the first attempt after the window is a plain 401 again.
    for (let i = 0; i < 300 && answer.status === 429; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      answer = await attempt();
    }
    expect(answer.status).toBe(401);
    expect(answer.headers.get('ratelimit')).toMatch(/^"auth-address";r=1;t=\d+$/);
  });
});
