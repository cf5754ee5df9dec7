// `hub connect` enrolling a daemon with a token the real hub issued to the CLI's credential, and
// `hub logout` forgetting a credential without touching the daemon identities; the help and
// usage errors of projects, connect and logout.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, setUp } from '../../server/test/support/client.js';
import { hubOn } from '../../server/test/support/hub.js';
import { saveCredential } from '../src/credentials.js';
import { hub as runHub } from './support/cli.js';
import { closedOrigin, recordingListener } from './support/origins.js';

const CONFIG = 'providers:\n  claude:\n    command: [claude, -p]\n    modes: [edit]\n';
const CLI_CREDENTIAL = 'hub_cli_0000000000000000000000000000secret';
const NOT_REVOKED = 'it stays valid there until you revoke it on your account page in the dashboard';

let hub: Awaited<ReturnType<typeof hubOn>>;
let org: Awaited<ReturnType<typeof setUp>>;
let readOnly: Awaited<ReturnType<typeof setUp>>;
let root: string;
let dir: string;
let config: string;
let env: Record<string, string>;

beforeAll(async () => {
  hub = await hubOn('embedded');
  org = await setUp(hub);
  readOnly = await setUp(hub, { scopes: ['projects:read'] });
}, 120_000);

afterAll(async () => hub?.close());

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'hub-connect-'));
  dir = join(root, 'config');
  config = join(root, 'daemon.yml');
  writeFileSync(config, CONFIG);
  env = { HUB_CONFIG_DIR: dir };
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

const hubCommand = (args: string[], extra: Record<string, string> = {}) => runHub(args, { env: { ...env, ...extra } });
const daemons = () => JSON.parse(readFileSync(join(dir, 'daemons.json'), 'utf8')).daemons;
const credentials = () => JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8'));
const tokensIssued = async () => (await hub.sql`select count(*)::int as n from enrollment_tokens`)[0]?.n as number;
/** Whether the hub knows an active daemon of that name in the organization: a configuration naming it validates. */
const validates = async (name: string) => {
  const yaml = `environments:\n  - { name: laptop, kind: daemon, daemon: ${name}, cwd: /tmp }\ntriggers: []\n`;
  const answer = await call(hub, 'POST', '/api/v1/configurations/validate', {
    token: org.key,
    body: { projectSlug: org.project, yaml },
  });
  if (answer.status === 422)
    expect(answer.body.issues).toEqual([expect.objectContaining({ code: 'resource.unknown_daemon' })]);
  else expect(answer.status, answer.text).toBe(200);
  return answer.status === 200;
};

describe('hub connect', () => {
  it('enrolls a daemon with a token issued to HUB_API_KEY, passed in memory, and tells how to start it', async () => {
    expect(await validates('dev-box')).toBe(false);
    const { code, stdout, stderr } = await hubCommand(['connect', hub.url, '--name', 'dev-box', '--config', config], {
      HUB_API_KEY: org.key,
      HUB_ENROLLMENT_TOKEN: 'hub_et_notthetokenitwasgiven',
    });
    expect(stderr).toBe('');
    expect(code).toBe(0);

    const identity = daemons()[hub.url];
    expect(identity).toMatchObject({
      origin: hub.url,
      name: 'dev-box',
      daemonId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(statSync(join(dir, 'daemons.json')).mode & 0o777).toBe(0o600);
    expect(await validates('dev-box')).toBe(true);

    expect(stdout).toContain(`Enrollment token issued by ${hub.url} (with HUB_API_KEY).\n`);
    expect(stdout).toContain(`Enrolled daemon dev-box (id ${identity.daemonId}) with ${hub.url}.`);
    expect(stdout).toContain(`Start it with: hub daemon run ${hub.url}`);
    // The next step that trips people: a step's working directory must exist on this machine.
    expect(stdout).toContain('daemon: dev-box, cwd: ');
    expect(stdout).toContain('Its working directory (cwd) must exist on this machine: the daemon does not create it');
    expect(stdout).not.toMatch(/hub_et_|hub_pk_/);
    // Connecting stores no CLI credential of its own.
    expect(() => statSync(join(dir, 'credentials.json'))).toThrow();
  });

  it('uses the active stored login when given no origin or key, and --replace takes over a name', async () => {
    await saveCredential(dir, hub.url, org.key, 'api_key', { activate: true });
    const first = await hubCommand(['connect', '--name', 'taken-box', '--config', config]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`Enrollment token issued by ${hub.url} (with the stored credential).\n`);

    const elsewhere = { HUB_CONFIG_DIR: join(root, 'other'), HUB_API_KEY: org.key };
    const taken = await hubCommand(['connect', hub.url, '--name', 'taken-box', '--config', config], elsewhere);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toMatch(/already named "taken-box".*run again with --replace/);
    const replaced = await hubCommand(
      ['connect', hub.url, '--name', 'taken-box', '--replace', '--config', config],
      elsewhere,
    );
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(root, 'other', 'daemons.json'), 'utf8')).daemons[hub.url].daemonId).not.toBe(
      daemons()[hub.url].daemonId,
    );
  });

  it("renders the hub's refusal of the token request (a key without daemons:enroll): exit 1, nothing stored", async () => {
    const { code, stdout, stderr } = await hubCommand(['connect', hub.url, '--name', 'dev-box', '--config', config], {
      HUB_API_KEY: readOnly.key,
    });
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(
      /^hub: The hub did not issue an enrollment token: .+ \(HTTP 403 Forbidden, [a-z_]+\)\nRequest id: [0-9a-f-]{36}\n$/,
    );
    expect(stderr).not.toContain(readOnly.key);
    expect(() => statSync(join(dir, 'daemons.json'))).toThrow();
  });

  it.each([
    [
      'no daemon config',
      ['--name', 'dev-box', '--config', '/nonexistent/daemon.yml'],
      /No daemon config at \/nonexistent\/daemon\.yml/,
    ],
    ['no --name', [], /--name is required/],
    ['a bad name', ['--name', 'Dev Box'], /--name "Dev Box": a name is 1 to 63/],
    [
      'a token option',
      ['--name', 'dev-box', '--token', 'hub_et_x'],
      /hub connect takes no token: it requests one with the credential/,
    ],
    ['a token option with =', ['--name', 'dev-box', '--enrollment-token=hub_et_x'], /takes no token/],
    [
      'an unknown option',
      ['--name', 'dev-box', '--nope'],
      /Unknown option '--nope'\.\nRun "hub connect --help" for usage\./,
    ],
  ])('refuses %s with exit 2, before a token is issued', async (_, args, message) => {
    const before = await tokensIssued();
    const { code, stderr } = await hubCommand(['connect', hub.url, '--config', config, ...args], {
      HUB_API_KEY: org.key,
    });
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
    expect(await tokensIssued()).toBe(before);
  });

  it('needs a credential for the hub: exit 2, no token issued', async () => {
    const before = await tokensIssued();
    const { code, stderr } = await hubCommand(['connect', hub.url, '--name', 'dev-box', '--config', config]);
    expect(code).toBe(2);
    expect(stderr).toContain(`No credential for ${hub.url}`);
    expect(await tokensIssued()).toBe(before);
  });
});

describe('hub logout', () => {
  const DAEMONS = '{"version":1,"daemons":{}}\n';
  const writeDaemons = () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'daemons.json'), DAEMONS, { mode: 0o600 });
    return statSync(join(dir, 'daemons.json')).mtimeMs;
  };

  it('removes the active credential and nothing else: other hubs stay, daemons.json is not touched', async () => {
    const other = await closedOrigin();
    await saveCredential(dir, other, 'hub_pk_other', 'api_key', { activate: false });
    await saveCredential(dir, hub.url, org.key, 'api_key', { activate: true });
    const mtime = writeDaemons();

    const { code, stdout, stderr } = await hubCommand(['logout']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toBe(`Removed the API key stored for ${hub.url}.\n`);
    expect(credentials()).toEqual({
      active: null,
      credentials: { [other]: expect.objectContaining({ token: 'hub_pk_other' }) },
    });
    expect(statSync(join(dir, 'credentials.json')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dir, 'daemons.json'), 'utf8')).toBe(DAEMONS);
    expect(statSync(join(dir, 'daemons.json')).mtimeMs).toBe(mtime);

    // Without the active login, a command has no credential for the default hub any more.
    const after = await hubCommand(['projects']);
    expect(after.code).toBe(2);
    expect(after.stderr).toContain('No credential for http://localhost:8080');
  });

  it('logs out of the hub named by the argument, else HUB_URL', async () => {
    const [first, second] = [await closedOrigin(), await closedOrigin()];
    await saveCredential(dir, first, 'hub_pk_first', 'api_key', { activate: true });
    await saveCredential(dir, second, 'hub_pk_second', 'api_key', { activate: false });
    expect((await hubCommand(['logout'], { HUB_URL: `${second}/` })).stdout).toBe(
      `Removed the API key stored for ${second}.\n`,
    );
    expect(credentials()).toEqual({ active: first, credentials: { [first]: expect.anything() } });
    expect((await hubCommand(['logout', first], { HUB_URL: second })).stdout).toBe(
      `Removed the API key stored for ${first}.\n`,
    );
    expect(credentials()).toEqual({ active: null, credentials: {} });
  });

  it('never calls the hub for an API key (owners revoke those); asks it to revoke a CLI credential (RFC 7009)', async () => {
    const listener = await recordingListener();
    try {
      await saveCredential(dir, listener.origin, 'hub_pk_stored', 'api_key', { activate: true });
      expect((await hubCommand(['logout'])).code).toBe(0);
      expect(listener.calls).toEqual([]);

      await saveCredential(dir, listener.origin, CLI_CREDENTIAL, 'cli', { activate: true });
      const { code, stdout } = await hubCommand(['logout']);
      expect(code).toBe(0);
      expect(listener.calls).toEqual([expect.objectContaining({ method: 'POST', path: '/oauth/revoke' })]);
      const [call] = listener.calls;
      expect(call?.headers['content-type']).toBe('application/x-www-form-urlencoded');
      expect(call?.headers.authorization).toBeUndefined();
      expect(Object.fromEntries(new URLSearchParams(call?.body))).toEqual({
        token: CLI_CREDENTIAL,
        token_type_hint: 'access_token',
        client_id: 'hub-cli',
      });
      expect(stdout).toBe(
        `Removed the CLI credential stored for ${listener.origin}; it was not revoked (the hub answered HTTP 404): ${NOT_REVOKED}.\n`,
      );
      expect(credentials().credentials).toEqual({});
    } finally {
      await listener.close();
    }
  });

  it('removes a CLI credential when the hub is unreachable, and says that it was not revoked', async () => {
    const gone = await closedOrigin();
    await saveCredential(dir, gone, CLI_CREDENTIAL, 'cli', { activate: true });
    const mtime = writeDaemons();
    const unreachable = await hubCommand(['logout']);
    expect(unreachable.code).toBe(0);
    expect(unreachable.stdout).toBe(
      `Removed the CLI credential stored for ${gone}; it was not revoked (could not reach the hub at ${gone}: ECONNREFUSED): ${NOT_REVOKED}.\n`,
    );
    expect(credentials().credentials).toEqual({});
    expect(unreachable.stdout + unreachable.stderr).not.toContain(CLI_CREDENTIAL);
    expect(statSync(join(dir, 'daemons.json')).mtimeMs).toBe(mtime);
  });

  it('exits 0 when nothing is stored, and notes that HUB_API_KEY still applies', async () => {
    const mtime = writeDaemons();
    expect(await hubCommand(['logout'])).toEqual({
      code: 0,
      stdout: `Not logged in: no active credential in ${join(dir, 'credentials.json')}.\n`,
      stderr: '',
    });
    expect(await hubCommand(['logout', hub.url])).toEqual({
      code: 0,
      stdout: `No credential is stored for ${hub.url}.\n`,
      stderr: '',
    });
    expect(() => statSync(join(dir, 'credentials.json'))).toThrow();
    expect(statSync(join(dir, 'daemons.json')).mtimeMs).toBe(mtime);

    await saveCredential(dir, hub.url, org.key, 'api_key', { activate: true });
    const { stdout } = await hubCommand(['logout'], { HUB_API_KEY: org.key });
    expect(stdout).toBe(
      `Removed the API key stored for ${hub.url}.\nHUB_API_KEY is still set in this environment, and commands use it.\n`,
    );
  });
});

describe('help and usage', () => {
  it('hub --help lists projects, connect and logout', async () => {
    const { stdout } = await runHub(['--help']);
    for (const name of ['projects', 'connect', 'logout']) expect(stdout).toMatch(new RegExp(`^ {2}${name} +\\S`, 'm'));
  });

  it.each([
    ['projects', /^Usage: hub projects \[origin\] \[--api-key KEY\] \[--json\]$/m],
    [
      'connect',
      /^Usage: hub connect \[origin\] --name NAME \[--api-key KEY\] \[--replace\] \[--config FILE\] \[--json\]$/m,
    ],
    ['logout', /^Usage: hub logout \[origin\] \[--json\]$/m],
  ])('hub %s --help: usage, options, environment, an example, exit codes', async (command, usage) => {
    const { code, stdout, stderr } = await runHub([command, '--help']);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toMatch(usage);
    expect(stdout).toMatch(/^Options:\n(?: {2}.*\n)*? {2}-h, --help/m);
    expect(stdout).toMatch(/^Environment:\n(?:.*\n)*? {2}HUB_URL /m);
    for (const variable of ['HUB_URL', 'HUB_API_KEY', 'HUB_CONFIG_DIR']) expect(stdout).toContain(`  ${variable} `);
    expect(stdout).toMatch(new RegExp(`^Example:\\n(?: {2}.*\\n)* {2}(?:HUB_API_KEY=\\S+ )?hub ${command}\\b`, 'm'));
    expect(stdout).toMatch(/^Exit codes:\n {2}0 .+\n(?:.*\n)* {2}1 .+\n(?:.*\n)* {2}2 +usage or configuration error/m);
    expect(stdout).not.toMatch(/hub_(?:pk|cli|et)_[A-Za-z0-9]{4}/);
  });

  it.each([
    [['projects', '--nope'], 'hub projects'],
    [['projects', 'http://a.example', 'http://b.example'], 'hub projects'],
    [['projects', '--api-key'], 'hub projects'],
    [['connect', '--nope'], 'hub connect'],
    [['logout', '--nope'], 'hub logout'],
    [['logout', '--api-key', 'hub_pk_x'], 'hub logout'],
    [['logout', 'http://a.example', 'http://b.example'], 'hub logout'],
  ])('%j is a usage error: exit 2', async (args, command) => {
    const { code, stdout, stderr } = await hubCommand(args);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(new RegExp(`^hub: .+\\nRun "${command} --help" for usage\\.\\n$`));
  });
});
