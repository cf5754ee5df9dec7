// `hub login`, `hub logout` and `hub auth status` end to end: real hubs (child processes), the
// CLI as a child process with --no-browser, and headless Chromium approving or denying on the
// dashboard's /device page as a signed-in person would. Approved, the credential is stored for
// exactly its origin and used by the other commands; logged out, the hub refuses it.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call } from '../../server/test/support/client.js';
import { hubOn } from '../../server/test/support/hub.js';
import { launchBrowser } from '../../dashboard/test/support/browser.js';
import { dashboardKey, form } from '../../dashboard/test/support/hub-pages.js';
import { arrange } from '../../dashboard/test/support/hub-session.js';
import { saveCredential } from '../src/credentials.js';
import { hub as runHub, start, type Running } from './support/cli.js';
import { closedOrigin } from './support/origins.js';
import { slowDownProxy } from './support/slow-down-proxy.js';

type Hub = Awaited<ReturnType<typeof hubOn>>;
const CLI_SCOPES = [
  'projects:read',
  'configuration:validate',
  'configuration:install',
  'runs:dispatch',
  'runs:read',
  'daemons:enroll',
];
const DAEMON_CONFIG = 'providers:\n  claude:\n    command: [claude, -p]\n    modes: [edit]\n';
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** hubA and hubB each have Ada (owner of acme, project app) and an API key "ops"; hubB also has the project bee. */
let hubA: Hub;
let hubB: Hub;
let ownerA: string;
let ownerB: string;
let keyA: string;
let keyB: string;
let browser: Browser;
let root: string;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  [hubA, hubB] = await Promise.all([
    hubOn('embedded', { HUB_DEVICE_POLL_INTERVAL_SECONDS: '1' }),
    hubOn('external', { HUB_DEVICE_POLL_INTERVAL_SECONDS: '1' }),
  ]);
  [{ owner: ownerA, key: keyA }, { owner: ownerB, key: keyB }] = await Promise.all([arrange(hubA), arrange(hubB)]);
  const bee = await call(hubB, 'POST', '/api/admin/v1/organizations/acme/projects', {
    token: hubB.adminToken,
    body: { slug: 'bee', name: 'Bee' },
  });
  expect(bee.status, bee.text).toBe(201);
  browser = await launchBrowser();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all([hubA?.close(), hubB?.close()]);
});

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'hub-login-'));
  dir = join(root, 'config');
  env = { HUB_CONFIG_DIR: dir };
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

const hubCommand = (args: string[], options: { env?: Record<string, string>; input?: string } = {}) =>
  runHub(args, { env: { ...env, ...options.env }, input: options.input });
const credentialsFile = () => join(dir, 'credentials.json');
const stored = () =>
  JSON.parse(readFileSync(credentialsFile(), 'utf8')) as {
    active: string | null;
    credentials: Record<string, { token: string; kind: string }>;
  };
const nothingStored = () => expect(() => statSync(credentialsFile())).toThrow();
const slugs = (stdout: string) =>
  (JSON.parse(stdout) as { projects: { slug: string }[] }).projects.map((project) => project.slug);
const accepted = async (hub: Hub, token: string) => (await call(hub, 'GET', '/api/v1/credential', { token })).status;

/** `hub login ARGS --no-browser`, running until the verification URL is printed. */
async function startLogin(
  args: string[],
  extra: Record<string, string> = {},
): Promise<{ login: Running; url: string }> {
  const login = start(['login', ...args, '--no-browser'], { env: { ...env, ...extra } });
  await login.waitFor(/^Waiting for approval/m);
  const url = /^Open (\S+)$/m.exec(login.output().stderr)?.[1];
  if (url === undefined) throw new Error(`no URL in:\n${login.output().stderr}`);
  return { login, url };
}

/** Ada, signed in in Chromium, opens the printed URL, continues with the code it shows, and approves or denies. */
async function decide(url: string, cookie: string, button: 'Approve' | 'Deny'): Promise<string> {
  const context = await browser.newContext();
  const [name, value] = [cookie.slice(0, cookie.indexOf('=')), cookie.slice(cookie.indexOf('=') + 1)];
  await context.addCookies([{ name, value, url: new URL(url).origin }]);
  const tab = await context.newPage();
  try {
    await tab.goto(url);
    await tab.click('form[action="/device"] button[type=submit]');
    await tab.waitForSelector(`button:text-is("${button}")`);
    await tab.click(`button:text-is("${button}")`);
    await tab.waitForSelector(`h1:text-is("CLI login ${button === 'Approve' ? 'approved' : 'denied'}")`);
    return (await tab.textContent('main')) ?? '';
  } finally {
    await context.close();
  }
}

/** A device code made and approved (for acme) as the CLI and the page would, with plain requests. */
async function approvedDeviceCode(hub: Hub, owner: string): Promise<string> {
  const post = (path: string, fields: Record<string, string>) =>
    fetch(`${hub.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields),
    });
  const device = (await (
    await post('/oauth/device_authorization', { client_id: 'hub-cli', hostname: 'ci.example' })
  ).json()) as { device_code: string; user_code: string };
  const [org] = await hub.sql`select id from organizations where slug = 'acme'`;
  const approved = await form(
    hub,
    '/device/approve',
    { user_code: device.user_code, organization: org?.id as string },
    { cookie: owner },
  );
  expect(approved.status).toBe(200);
  return device.device_code;
}

function redeem(hub: Hub, deviceCode: string) {
  return fetch(`${hub.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: DEVICE_GRANT, device_code: deviceCode, client_id: 'hub-cli' }),
  });
}

describe('hub login in the browser', () => {
  it('stores a CLI credential approved in the dashboard; projects and connect use it; logout revokes it and leaves daemons.json alone', async () => {
    const { login, url } = await startLogin([hubA.url]);
    expect(url).toMatch(
      new RegExp(`^${hubA.url}/device\\?user_code=[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$`),
    );
    const code = new URL(url).searchParams.get('user_code') as string;
    expect(login.output().stderr).toContain(
      `To log in to ${hubA.url}, approve this one-time code in the browser: ${code}\n`,
    );
    expect(login.output().stderr).toContain(`(or ${hubA.url}/device, and type the code).\n`);
    expect(login.output().stderr).toMatch(
      /^Waiting for approval \(the code expires in 10 minutes; Ctrl-C to stop\)\.\.\.$/m,
    );

    expect(await decide(url, ownerA, 'Approve')).toContain('Return to your terminal');
    expect(await login.exited).toBe(0);
    const { stdout, stderr } = login.output();
    expect(stdout).toBe('');
    expect(stderr).toMatch(
      new RegExp(`\\nLogged in to ${hubA.url} as Ada \\(ada@example\\.com\\) in organization acme\\.\\n$`),
    );

    const file = stored();
    const token = file.credentials[hubA.url]?.token as string;
    expect(file).toEqual({
      active: hubA.url,
      credentials: {
        [hubA.url]: {
          token: expect.stringMatching(/^hub_cli_[0-9A-Za-z]{38}$/),
          kind: 'cli',
          savedAt: expect.any(String),
        },
      },
    });
    expect(statSync(credentialsFile()).mode & 0o777).toBe(0o600);
    expect(stderr).not.toContain(token);
    const credential = await call(hubA, 'GET', '/api/v1/credential', { token });
    expect(credential.body).toMatchObject({
      kind: 'cli',
      scopes: CLI_SCOPES,
      account: { name: 'Ada', email: 'ada@example.com' },
      organization: { slug: 'acme' },
    });

    // Without an origin or a key, commands use the active login.
    const projects = await hubCommand(['projects', '--json']);
    expect(projects.stderr).toBe('');
    expect(JSON.parse(projects.stdout)).toMatchObject({ origin: hubA.url });
    expect(slugs(projects.stdout)).toEqual(['app']);
    const config = join(root, 'daemon.yml');
    writeFileSync(config, DAEMON_CONFIG);
    const connected = await hubCommand(['connect', '--name', 'dev-box', '--config', config]);
    expect(connected.code, connected.stderr).toBe(0);
    expect(connected.stdout).toContain(`Enrollment token issued by ${hubA.url} (with the stored credential).`);
    const daemons = readFileSync(join(dir, 'daemons.json'), 'utf8');
    const daemonsMtime = statSync(join(dir, 'daemons.json')).mtimeMs;

    const logout = await hubCommand(['logout']);
    expect(logout).toEqual({
      code: 0,
      stdout: `Removed the CLI credential stored for ${hubA.url}; the hub revoked it.\n`,
      stderr: '',
    });
    expect(stored()).toEqual({ active: null, credentials: {} });
    expect(await accepted(hubA, token)).toBe(401);
    expect((await call(hubA, 'GET', '/api/v1/projects', { token })).status).toBe(401);
    expect(readFileSync(join(dir, 'daemons.json'), 'utf8')).toBe(daemons);
    expect(statSync(join(dir, 'daemons.json')).mtimeMs).toBe(daemonsMtime);
  }, 60_000);

  it('logging in again revokes the CLI credential it replaces, once the new one is stored', async () => {
    const logIn = async () => {
      const { login, url } = await startLogin([hubA.url]);
      await decide(url, ownerA, 'Approve');
      expect(await login.exited).toBe(0);
      return { token: stored().credentials[hubA.url]?.token as string, stderr: login.output().stderr };
    };
    const first = await logIn();
    const second = await logIn();
    expect(second.token).not.toBe(first.token);
    expect(second.stderr).toContain(
      `The CLI credential stored for ${hubA.url} before was replaced; the hub revoked it.\n`,
    );
    expect(await accepted(hubA, first.token)).toBe(401);
    expect(await accepted(hubA, second.token)).toBe(200);
    expect(await hubCommand(['logout'])).toMatchObject({ code: 0 });
  }, 60_000);

  it('stops with exit 1 when the login is denied in the browser, and stores nothing', async () => {
    const { login, url } = await startLogin([hubA.url]);
    expect(await decide(url, ownerA, 'Deny')).toContain('hub login there stops');
    expect(await login.exited).toBe(1);
    expect(login.output().stderr).toMatch(/\nhub: The login was denied in the browser; nothing was stored\.\n$/);
    nothingStored();
  }, 60_000);

  it('honours slow_down: after the hub says it, the CLI waits 5 s longer, so the hub never has to say it again', async () => {
    const proxy = await slowDownProxy(hubA.url);
    try {
      const { login, url } = await startLogin([proxy.origin]);
      // The verification page is the hub's own: the proxy only rewrote the metadata.
      expect(url.startsWith(`${hubA.url}/device?user_code=`)).toBe(true);
      await expect.poll(() => proxy.repliedAt, { timeout: 15_000 }).toBeDefined();
      await decide(url, ownerA, 'Approve');
      expect(await login.exited).toBe(0);
      expect(login.output().stderr).toContain(
        `Logged in to ${proxy.origin} as Ada (ada@example.com) in organization acme.`,
      );
      expect(stored().credentials[proxy.origin]?.kind).toBe('cli');

      expect(proxy.polls.filter((poll) => poll.replay)).toEqual([
        expect.objectContaining({ status: 400, error: 'slow_down' }),
      ]);
      const later = proxy.polls.slice(2);
      expect(later.length).toBeGreaterThan(0);
      expect(later.at(-1)?.status).toBe(200);
      expect(later.filter((poll) => poll.error === 'slow_down')).toEqual([]);
      expect(proxy.arrivals[0]).toBeGreaterThanOrEqual(proxy.repliedAt as number);
    } finally {
      await proxy.close();
    }
  }, 60_000);

  it('Ctrl-C while waiting stops cleanly: one line, exit 130, nothing stored', async () => {
    const { login } = await startLogin([hubA.url]);
    login.child.kill('SIGINT');
    expect(await login.exited).toBe(130);
    const { stdout, stderr } = login.output();
    expect(stdout).toBe('');
    expect(stderr.split('\n').filter((line) => line.startsWith('hub:'))).toEqual([
      'hub: login stopped; nothing was stored.',
    ]);
    expect(stderr.endsWith('hub: login stopped; nothing was stored.\n')).toBe(true);
    expect(stderr).not.toMatch(/Error|^\s+at /m);
    nothingStored();
  }, 30_000);

  it('uses HUB_URL, then the active login, when given no origin; an unreachable hub is an error, nothing stored', async () => {
    const gone = await closedOrigin();
    const unreachable = await hubCommand(['login', gone, '--no-browser']);
    expect(unreachable).toEqual({
      code: 1,
      stdout: '',
      stderr: `hub: could not reach the hub at ${gone}: ECONNREFUSED\n`,
    });
    nothingStored();

    const { login, url } = await startLogin([], { HUB_URL: `${hubB.url}/` });
    expect(url.startsWith(`${hubB.url}/device`)).toBe(true);
    login.child.kill('SIGINT');
    expect(await login.exited).toBe(130);

    await saveCredential(dir, hubB.url, keyB, 'api_key', { activate: true });
    const again = await startLogin([]);
    expect(again.url.startsWith(`${hubB.url}/device`)).toBe(true);
    again.login.child.kill('SIGTERM');
    expect(await again.login.exited).toBe(143);
    expect(stored().credentials[hubB.url]?.token).toBe(keyB);
  }, 60_000);
});

describe('hub login with a short code lifetime', () => {
  let hubC: Hub;

  beforeAll(async () => {
    hubC = await hubOn('external', { HUB_DEVICE_CODE_LIFETIME_SECONDS: '2', HUB_DEVICE_POLL_INTERVAL_SECONDS: '1' });
  }, 120_000);
  afterAll(async () => hubC?.close());

  it('stops once the code has expired without approval: exit 1, the message says to start again, nothing stored', async () => {
    const { login } = await startLogin([hubC.url]);
    expect(login.output().stderr).toContain('Waiting for approval (the code expires in 2 seconds; Ctrl-C to stop)...');
    expect(await login.exited).toBe(1);
    expect(login.output().stderr).toMatch(
      /\nhub: The code expired before it was approved; nothing was stored\. Run "hub login" again for a new code\.\n$/,
    );
    nothingStored();
  }, 30_000);
});

describe('a device code', () => {
  it('is redeemed once: the second redemption is invalid_grant', async () => {
    const deviceCode = await approvedDeviceCode(hubA, ownerA);
    const first = await redeem(hubA, deviceCode);
    expect(first.status).toBe(200);
    expect(((await first.json()) as { access_token: string }).access_token).toMatch(/^hub_cli_/);
    const second = await redeem(hubA, deviceCode);
    expect(second.status).toBe(400);
    expect(await second.json()).toMatchObject({ error: 'invalid_grant' });
  });
});

describe('two hubs side by side', () => {
  it('keeps a login per origin; each command sends the credential of its own origin only; logout of one leaves the other', async () => {
    for (const [hub, owner] of [
      [hubA, ownerA],
      [hubB, ownerB],
    ] as const) {
      const { login, url } = await startLogin([hub.url]);
      await decide(url, owner, 'Approve');
      expect(await login.exited).toBe(0);
    }
    const file = stored();
    expect(Object.keys(file.credentials)).toEqual([hubA.url, hubB.url]);
    expect(file.active).toBe(hubB.url);
    const [tokenA, tokenB] = [file.credentials[hubA.url]?.token as string, file.credentials[hubB.url]?.token as string];
    expect(tokenA).not.toBe(tokenB);

    // hubB has the project bee, hubA has not: the listing tells which hub answered, and with which credential.
    expect(slugs((await hubCommand(['projects', '--json'])).stdout)).toEqual(['app', 'bee']);
    expect(slugs((await hubCommand(['projects', hubA.url, '--json'])).stdout)).toEqual(['app']);
    expect(slugs((await hubCommand(['projects', '--json'], { env: { HUB_URL: hubA.url } })).stdout)).toEqual(['app']);
    expect((await call(hubA, 'GET', '/api/v1/projects', { token: tokenB })).status).toBe(401);

    const logout = await hubCommand(['logout', hubA.url]);
    expect(logout.stdout).toBe(`Removed the CLI credential stored for ${hubA.url}; the hub revoked it.\n`);
    expect(stored()).toEqual({
      active: hubB.url,
      credentials: { [hubB.url]: expect.objectContaining({ token: tokenB }) },
    });
    expect(await accepted(hubA, tokenA)).toBe(401);
    expect(await accepted(hubB, tokenB)).toBe(200);
    expect(slugs((await hubCommand(['projects', '--json'])).stdout)).toEqual(['app', 'bee']);
  }, 90_000);
});

describe('hub login --with-token', () => {
  it('checks an API key with the hub, stores it as the active login (kind by its prefix), and never prints it', async () => {
    const { code, stdout, stderr } = await hubCommand(['login', '--with-token', hubA.url], { input: `  ${keyA}\n` });
    expect({ code, stdout }).toEqual({ code: 0, stdout: '' });
    expect(stderr).toBe(`Logged in to ${hubA.url} with the API key "ops" in organization acme.\n`);
    expect(stored()).toEqual({
      active: hubA.url,
      credentials: { [hubA.url]: { token: keyA, kind: 'api_key', savedAt: expect.any(String) } },
    });
    expect(slugs((await hubCommand(['projects', '--json'])).stdout)).toEqual(['app']);

    const deviceCode = await approvedDeviceCode(hubB, ownerB);
    const cli = ((await (await redeem(hubB, deviceCode)).json()) as { access_token: string }).access_token;
    const second = await hubCommand(['login', '--with-token', hubB.url], { input: cli, env: { HUB_API_KEY: keyA } });
    expect(second.code).toBe(0);
    expect(second.stderr).toBe(
      `Logged in to ${hubB.url} as Ada (ada@example.com) in organization acme.\nNote: HUB_API_KEY is set in this environment; commands use it instead of this login while it is.\n`,
    );
    expect(stored()).toMatchObject({
      active: hubB.url,
      credentials: { [hubA.url]: { kind: 'api_key' }, [hubB.url]: { token: cli, kind: 'cli' } },
    });
  });

  it('refuses a revoked key (exit 1), and stores nothing', async () => {
    const revoked = await dashboardKey(hubA, ownerA, 'revoked-soon', ['projects:read']);
    const [row] = await hubA.sql`select id from api_keys where name = 'revoked-soon'`;
    expect((await form(hubA, `/keys/${row?.id as string}/revoke`, {}, { cookie: ownerA })).status).toBe(303);
    const { code, stdout, stderr } = await hubCommand(['login', '--with-token', hubA.url], { input: revoked });
    expect({ code, stdout, stderr }).toEqual({
      code: 1,
      stdout: '',
      stderr: `hub: The hub at ${hubA.url} does not accept this credential (revoked or unknown); nothing was stored.\n`,
    });
    nothingStored();
  });

  it.each([
    [
      'empty input',
      '\n',
      /^hub: Standard input is empty: give an API key \(hub_pk_\.\.\.\) or a CLI credential \(hub_cli_\.\.\.\)\.\n$/,
    ],
    [
      'an enrollment token',
      'hub_et_0123456789abcdef\n',
      /^hub: That is an enrollment token \(hub_et_\.\.\.\), which only enrolls a daemon/,
    ],
    [
      'anything else',
      'password123\n',
      /^hub: Standard input holds no API key \(hub_pk_\.\.\.\) or CLI credential \(hub_cli_\.\.\.\): give exactly one, alone\.\n$/,
    ],
    ['two keys', 'hub_pk_aaaa\nhub_pk_bbbb\n', /holds no API key .* give exactly one, alone/],
  ])('refuses %s with exit 2, before asking the hub, and never echoes it', async (_, input, message) => {
    const { code, stdout, stderr } = await hubCommand(['login', '--with-token', await closedOrigin()], { input });
    expect({ code, stdout }).toEqual({ code: 2, stdout: '' });
    expect(stderr).toMatch(message);
    expect(stderr).not.toMatch(/0123456789abcdef|password123|aaaa/);
    nothingStored();
  });

  it('stores nothing when the hub cannot be reached', async () => {
    const gone = await closedOrigin();
    const { code, stderr } = await hubCommand(['login', '--with-token', gone], { input: keyA });
    expect(code).toBe(1);
    expect(stderr).toBe(
      `hub: Could not check the credential, so nothing was stored: could not reach the hub at ${gone}: ECONNREFUSED\n`,
    );
    nothingStored();
  });
});

describe('hub auth status', () => {
  it('shows every stored login in stored order, with what its hub says, and exits 1 unless every one is accepted', async () => {
    const gone = await closedOrigin();
    const deviceCode = await approvedDeviceCode(hubA, ownerA);
    const cli = ((await (await redeem(hubA, deviceCode)).json()) as { access_token: string }).access_token;
    const doomed = await dashboardKey(hubB, ownerB, 'doomed', ['projects:read', 'runs:read']);
    expect((await hubCommand(['login', '--with-token', hubA.url], { input: cli })).code).toBe(0);
    await saveCredential(dir, gone, 'hub_pk_0000000000000000000000000000gone00', 'api_key', { activate: false });
    expect((await hubCommand(['login', '--with-token', hubB.url], { input: doomed })).code).toBe(0);
    const [row] = await hubB.sql`select id from api_keys where name = 'doomed'`;
    expect((await form(hubB, `/keys/${row?.id as string}/revoke`, {}, { cookie: ownerB })).status).toBe(303);

    const text = await hubCommand(['auth', 'status']);
    expect(text.code).toBe(1);
    expect(text.stderr).toBe('');
    expect(text.stdout).toBe(
      [
        hubA.url,
        '  Credential:   CLI credential (hub login)',
        '  Organization: Acme (acme)',
        '  Who:          Ada (ada@example.com)',
        `  Scopes:       ${CLI_SCOPES.join(' ')}`,
        '  Accepted:     yes',
        '',
        gone,
        '  Credential:   API key (hub login --with-token)',
        `  Accepted:     unknown: could not reach the hub at ${gone}: ECONNREFUSED`,
        '',
        `${hubB.url} (active)`,
        '  Credential:   API key (hub login --with-token)',
        '  Accepted:     no: expired, revoked or unknown',
        `  Run "hub login ${hubB.url}" to log in again, or "hub logout ${hubB.url}" to forget it.`,
        '',
      ].join('\n'),
    );
    expect(text.stdout).not.toMatch(/hub_(?:pk|cli)_[0-9A-Za-z]{8}/);

    const json = await hubCommand(['auth', 'status', '--json']);
    expect(json.code).toBe(1);
    const [accountA] = await hubA.sql`select id from accounts where email = 'ada@example.com'`;
    const [orgA] = await hubA.sql`select id from organizations where slug = 'acme'`;
    expect(JSON.parse(json.stdout)).toEqual({
      active: hubB.url,
      logins: [
        {
          origin: hubA.url,
          active: false,
          kind: 'cli',
          valid: true,
          organization: { id: orgA?.id, slug: 'acme', name: 'Acme' },
          account: { id: accountA?.id, name: 'Ada', email: 'ada@example.com' },
          name: 'hub login on ci.example',
          scopes: CLI_SCOPES,
        },
        {
          origin: gone,
          active: false,
          kind: 'api_key',
          valid: null,
          organization: null,
          account: null,
          name: null,
          scopes: null,
          error: `could not reach the hub at ${gone}: ECONNREFUSED`,
        },
        {
          origin: hubB.url,
          active: true,
          kind: 'api_key',
          valid: false,
          organization: null,
          account: null,
          name: null,
          scopes: null,
          error: 'revoked or unknown',
        },
      ],
    });

    // Only accepted logins left: exit 0; an API key shows its name.
    await hubCommand(['logout', gone]);
    await hubCommand(['logout', hubB.url]);
    expect((await hubCommand(['login', '--with-token', hubB.url], { input: keyB })).code).toBe(0);
    const fine = await hubCommand(['auth', 'status'], { env: { HUB_API_KEY: keyA } });
    expect(fine.code).toBe(0);
    expect(fine.stdout).toContain(
      `${hubB.url} (active)\n  Credential:   API key (hub login --with-token)\n  Organization: Acme (acme)\n  Who:          the API key "ops"\n`,
    );
    expect(
      fine.stdout.endsWith('\n\nHUB_API_KEY is set in this environment: commands use it instead of these logins.\n'),
    ).toBe(true);
  });

  it('says "Not logged in to any hub." and exits 1 when nothing is stored (as gh auth status does)', async () => {
    expect(await hubCommand(['auth', 'status'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'Not logged in to any hub. Run "hub login [origin]" to log in.\n',
    });
    const json = await hubCommand(['auth', 'status', '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({ active: null, logins: [] });
  });
});

describe('help and usage', () => {
  it.each([
    [
      ['login', '--help'],
      /^Usage: hub login \[origin\] \[--no-browser\]\n {7}hub login \[origin\] --with-token < FILE$/m,
      ['HUB_URL', 'HUB_CONFIG_DIR', 'HUB_API_KEY', 'DISPLAY, WAYLAND_DISPLAY'],
    ],
    [['auth', 'status', '--help'], /^Usage: hub auth status \[--json\]$/m, ['HUB_CONFIG_DIR', 'HUB_API_KEY']],
    [['logout', '--help'], /^Usage: hub logout \[origin\] \[--json\]$/m, ['HUB_URL', 'HUB_CONFIG_DIR', 'HUB_API_KEY']],
  ])('%j: usage, options, files, environment, an example, exit codes', async (args, usage, variables) => {
    const { code, stdout, stderr } = await runHub(args);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toMatch(usage);
    expect(stdout).toMatch(/^Options:\n(?: {2}.*\n)*? {2}-h, --help/m);
    expect(stdout).toMatch(/^Files:\n {2}credentials\.json /m);
    for (const variable of variables) expect(stdout).toMatch(new RegExp(`^ {2}${variable}\\b`, 'm'));
    expect(stdout).toMatch(new RegExp(`^Example:\\n {2}hub ${args.slice(0, -1).join(' ')}\\b`, 'm'));
    expect(stdout).toMatch(/^Exit codes:\n {2}0 .+\n(?:.*\n)* {2}1 .+\n(?:.*\n)* {2}2 +usage or configuration error/m);
    expect(stdout).not.toMatch(/hub_(?:pk|cli|et)_[A-Za-z0-9]{4}/);
  });

  it('hub login --help documents exit 130 for Ctrl-C; hub --help and hub auth --help list the new commands', async () => {
    expect((await runHub(['login', '--help'])).stdout).toMatch(/^ {2}130 stopped with Ctrl-C/m);
    const top = (await runHub(['--help'])).stdout;
    for (const name of ['login', 'logout', 'auth']) expect(top).toMatch(new RegExp(`^ {2}${name} +\\S`, 'm'));
    expect((await runHub(['auth', '--help'])).stdout).toMatch(/^ {2}status +Show the stored logins/m);
  });

  it.each([
    [['login', '--nope'], 'hub login'],
    [['login', 'http://a.example', 'http://b.example'], 'hub login'],
    [['login', '--with-token', '--no-browser'], 'hub login'],
    [['auth', 'status', 'http://a.example'], 'hub auth status'],
    [['auth', 'status', '--nope'], 'hub auth status'],
    [['auth', 'nope'], 'hub auth'],
  ])('%j is a usage error: exit 2', async (args, command) => {
    const { code, stdout, stderr } = await hubCommand(args);
    expect({ code, stdout }).toEqual({ code: 2, stdout: '' });
    expect(stderr).toMatch(new RegExp(`^hub: .+\\nRun "${command} --help" for usage\\.\\n$`));
  });

  it('a login origin with a path is refused before anything is sent', async () => {
    const { code, stderr } = await hubCommand(['login', `${hubA.url}/device`, '--no-browser']);
    expect(code).toBe(2);
    expect(stderr).toContain('has a path, query or fragment');
    nothingStored();
  });
});

describe('logout and daemons.json', () => {
  it('removes an API key login without calling the hub, and does not touch daemons.json', async () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'daemons.json'), '{"version":1,"daemons":{}}\n', { mode: 0o600 });
    const mtime = statSync(join(dir, 'daemons.json')).mtimeMs;
    expect((await hubCommand(['login', '--with-token', hubA.url], { input: keyA })).code).toBe(0);
    expect((await hubCommand(['logout'])).stdout).toBe(`Removed the API key stored for ${hubA.url}.\n`);
    expect(await accepted(hubA, keyA)).toBe(200);
    expect(statSync(join(dir, 'daemons.json')).mtimeMs).toBe(mtime);
  });
});
