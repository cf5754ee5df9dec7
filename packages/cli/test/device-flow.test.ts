// The CLI side of the device authorization grant against a scripted authorization server on a
// real HTTP port: what is sent, how long it waits between polls (interval, +5 s per slow_down,
// never past the expiry), and how each error answer ends the login. The pauses are recorded,
// not slept, so nothing here depends on timing; the real hub is in login-e2e.test.ts.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  discoverEndpoints,
  pollForCredential,
  requestDeviceCode,
  type DeviceCode,
  type Endpoints,
} from '../src/device-flow.js';
import { Interrupted } from '../src/errors.js';

const TOKEN = 'hub_cli_0123456789abcdefghijklmnopqrstuvAbCdEf';

type Answer = { status: number; body: unknown; headers?: Record<string, string> };
let server: Server;
let origin: string;
let answers: Answer[];
let requests: { method: string; path: string; type: string | undefined; form: Record<string, string> }[];

beforeEach(async () => {
  answers = [];
  requests = [];
  server = createServer(async (req, res) => {
    let text = '';
    for await (const chunk of req) text += chunk;
    requests.push({
      method: req.method ?? '',
      path: req.url ?? '',
      type: req.headers['content-type'],
      form: Object.fromEntries(new URLSearchParams(text)),
    });
    const { status, body, headers } = answers.shift() ?? { status: 500, body: 'no answer scripted' };
    res
      .writeHead(status, { 'content-type': typeof body === 'string' ? 'text/plain' : 'application/json', ...headers })
      .end(typeof body === 'string' ? body : JSON.stringify(body));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(() => new Promise<void>((resolve) => server.close(() => resolve())));

const stop = () => new AbortController().signal;
const endpoints = (): Endpoints => ({
  deviceAuthorization: `${origin}/oauth/device_authorization`,
  token: `${origin}/oauth/token`,
});
const code = (overrides: Partial<DeviceCode> = {}): DeviceCode => ({
  deviceCode: 'device-code-1',
  userCode: 'BCDF-GHJK',
  verificationUri: `${origin}/device`,
  verificationUriComplete: `${origin}/device?user_code=BCDF-GHJK`,
  expiresInS: 600,
  intervalS: 1,
  ...overrides,
});
const error = (name: string, description?: string): Answer => ({
  status: 400,
  body: { error: name, ...(description === undefined ? {} : { error_description: description }) },
});

/** A `wait` that records each pause and returns at once. */
function recorder() {
  const waits: number[] = [];
  return { waits, wait: async (ms: number) => (waits.push(ms), true) };
}

describe('discoverEndpoints', () => {
  const metadata = (overrides: Record<string, unknown> = {}) => ({
    issuer: origin,
    device_authorization_endpoint: `${origin}/oauth/device_authorization`,
    token_endpoint: `${origin}/oauth/token`,
    revocation_endpoint: `${origin}/oauth/revoke`,
    ...overrides,
  });

  it('reads the endpoints from /.well-known/oauth-authorization-server', async () => {
    answers.push({ status: 200, body: metadata() });
    expect(await discoverEndpoints(origin, stop())).toEqual(endpoints());
    expect(requests).toEqual([
      expect.objectContaining({ method: 'GET', path: '/.well-known/oauth-authorization-server' }),
    ]);
  });

  it.each([
    [
      'another host',
      { token_endpoint: 'http://evil.example/oauth/token' },
      /names its token_endpoint on another origin \(http:\/\/evil\.example\); hub login sends nothing there/,
    ],
    [
      'another port',
      { device_authorization_endpoint: 'http://127.0.0.1:1/oauth/device_authorization' },
      /device_authorization_endpoint on another origin/,
    ],
    ['not a URL', { token_endpoint: 'oauth/token' }, /names no usable token_endpoint/],
    ['not http', { token_endpoint: 'file:///etc/passwd' }, /names no usable token_endpoint/],
    ['missing', { device_authorization_endpoint: undefined }, /names no usable device_authorization_endpoint/],
  ])('refuses an endpoint on %s', async (_, overrides, message) => {
    answers.push({ status: 200, body: metadata(overrides) });
    await expect(discoverEndpoints(origin, stop())).rejects.toThrow(message);
  });

  it('says that a hub without the metadata does not offer hub login, and what to do instead', async () => {
    answers.push({ status: 404, body: { title: 'Not found', status: 404, code: 'not_found' } });
    await expect(discoverEndpoints(origin, stop())).rejects.toThrow(
      /does not offer "hub login" .*HTTP 404.*hub login --with-token/,
    );
  });
});

describe('requestDeviceCode', () => {
  it('posts client_id and hostname form-encoded, and defaults the interval to 5 s (RFC 8628, 3.2)', async () => {
    answers.push({
      status: 200,
      body: { device_code: 'dc', user_code: 'BCDF-GHJK', verification_uri: `${origin}/device`, expires_in: 600 },
    });
    expect(await requestDeviceCode(endpoints(), 'dev-box', stop())).toEqual({
      deviceCode: 'dc',
      userCode: 'BCDF-GHJK',
      verificationUri: `${origin}/device`,
      verificationUriComplete: undefined,
      expiresInS: 600,
      intervalS: 5,
    });
    expect(requests).toEqual([
      {
        method: 'POST',
        path: '/oauth/device_authorization',
        type: 'application/x-www-form-urlencoded',
        form: { client_id: 'hub-cli', hostname: 'dev-box' },
      },
    ]);
  });

  it("renders the hub's OAuth error, and refuses an answer without a device code", async () => {
    answers.push(error('invalid_client', 'unknown client'));
    await expect(requestDeviceCode(endpoints(), 'h', stop())).rejects.toThrow(
      'The hub did not start a login: invalid_client: unknown client (HTTP 400)',
    );
    answers.push({
      status: 200,
      body: { device_code: 'dc', user_code: 'X', verification_uri: 'javascript:alert(1)', expires_in: 600 },
    });
    await expect(requestDeviceCode(endpoints(), 'h', stop())).rejects.toThrow(
      /with something other than a device code/,
    );
  });
});

describe('pollForCredential', () => {
  it('polls every interval, 5 s longer after each slow_down, until the credential comes', async () => {
    answers.push(
      error('authorization_pending'),
      error('slow_down'),
      error('authorization_pending'),
      error('slow_down'),
      { status: 200, body: { access_token: TOKEN, token_type: 'Bearer' } },
    );
    const { waits, wait } = recorder();
    expect(await pollForCredential(endpoints(), code(), stop(), wait)).toBe(TOKEN);
    expect(waits).toEqual([1_000, 1_000, 6_000, 6_000, 11_000]);
    expect(requests.map((request) => request.form)).toEqual(
      Array(5).fill({
        grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
        device_code: 'device-code-1',
        client_id: 'hub-cli',
      }),
    );
  });

  it('waits out a hub that cannot answer now (503) or throttles (429): Retry-After when longer than the interval', async () => {
    const unavailable = { title: 'Database unavailable', status: 503, code: 'database_unavailable' };
    answers.push(
      { status: 503, body: unavailable, headers: { 'retry-after': '7' } },
      { status: 429, body: { title: 'Too many requests', status: 429, code: 'too_many_requests' } },
      error('authorization_pending'),
      { status: 200, body: { access_token: TOKEN, token_type: 'Bearer' } },
    );
    const { waits, wait } = recorder();
    expect(await pollForCredential(endpoints(), code(), stop(), wait)).toBe(TOKEN);
    expect(waits).toEqual([1_000, 7_000, 1_000, 1_000]);
  });

  it.each([
    ['access_denied', error('access_denied'), 'The login was denied in the browser; nothing was stored.'],
    [
      'expired_token',
      error('expired_token'),
      'The code expired before it was approved; nothing was stored. Run "hub login" again for a new code.',
    ],
    [
      'invalid_grant',
      error('invalid_grant', 'already redeemed'),
      /no longer knows this login \(invalid_grant: already redeemed \(HTTP 400\)\): the code was already used or has expired/,
    ],
    [
      'another error',
      error('invalid_client'),
      'The hub refused the login: invalid_client (HTTP 400). Nothing was stored.',
    ],
    [
      'a non-JSON answer',
      { status: 502, body: 'Bad gateway' },
      'The hub refused the login: The hub answered HTTP 502 Bad Gateway: Bad gateway. Nothing was stored.',
    ],
    [
      'a 200 without a CLI credential',
      { status: 200, body: { access_token: 'hub_pk_notacli' } },
      /approved the login but answered with something other than a CLI credential/,
    ],
  ])('stops on %s', async (_, answer, message) => {
    answers.push(error('authorization_pending'), answer);
    await expect(pollForCredential(endpoints(), code(), stop(), recorder().wait)).rejects.toThrow(message);
    expect(requests).toHaveLength(2);
  });

  it('stops by itself once expires_in has passed, and never waits past it', async () => {
    answers.push(error('authorization_pending'));
    const waits: number[] = [];
    // The first pause is cut to what is left of 0.05 s; the wait sleeps it, then no poll is sent.
    // It sleeps until the clock has moved on by `ms`: a timer may fire a millisecond early by
    // Date.now(), which would leave the code a moment of life and let a poll go.
    const wait = async (ms: number) => {
      waits.push(ms);
      const until = Date.now() + ms;
      while (Date.now() < until) await new Promise((resolve) => setTimeout(resolve, Math.max(1, until - Date.now())));
      return true;
    };
    await expect(
      pollForCredential(endpoints(), code({ expiresInS: 0.05, intervalS: 5 }), stop(), wait),
    ).rejects.toThrow(/The code expired before it was approved/);
    expect(waits[0]).toBeLessThanOrEqual(50);
    expect(requests).toHaveLength(0);
  });

  it('ends with Interrupted when stopped while waiting, without another poll', async () => {
    const controller = new AbortController();
    controller.abort('received SIGINT');
    const stopped = pollForCredential(endpoints(), code(), controller.signal, async () => false);
    await expect(stopped).rejects.toBeInstanceOf(Interrupted);
    await expect(stopped).rejects.toMatchObject({ exitCode: 130 });
    expect(requests).toHaveLength(0);
  });
});
