// The `hub` executable as a user meets it: help, version, usage errors, and `hub daemon enroll`
// against a real HTTP server that stands in for the hub.
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hub } from './support/cli.js';
import { FakeHub } from './support/fake-hub.js';

const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string })
  .version;
const TOKEN = 'hub_et_0123456789abcdefghijklmnopqrstuvwxyzAB';
const CONFIG =
  'concurrency: 2\nproviders:\n  claude:\n    command: [claude, -p]\n    modes: [edit, plan]\n  codex:\n    command: [codex, exec, "-"]\n    models: [o3]\n';

let dir: string;
let env: Record<string, string>;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hub-cli-'));
  env = { HUB_CONFIG_DIR: join(dir, 'config') };
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

function writeConfig(text = CONFIG): string {
  const path = join(dir, 'daemon.yml');
  writeFileSync(path, text);
  return path;
}

describe('hub', () => {
  it('--help lists the commands, each with its summary, and the exit codes', async () => {
    const { code, stdout, stderr } = await hub(['--help']);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toMatch(/^Usage: hub <command> \[options\]$/m);
    const [heading, ...listed] = stdout
      .slice(stdout.indexOf('Commands:'), stdout.indexOf('Options:'))
      .trim()
      .split('\n');
    expect(heading).toBe('Commands:');
    for (const line of listed) expect(line).toMatch(/^ {2}[a-z]+ {3,}\S/);
    // Every summary starts in one column, also after the longest name (completion).
    expect(new Set(listed.map((line) => /^ {2}[a-z]+ +/.exec(line)?.[0].length)).size).toBe(1);
    expect(listed).toContainEqual(expect.stringMatching(/^ {2}completion {3}Print a shell completion script/));
    expect(stdout).toMatch(/Exit codes:\n {2}0 +success\n {2}1 +failure.*\n {2}2 +usage or configuration error/);
  });

  it('--version prints the package version', async () => {
    expect(await hub(['--version'])).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
  });

  it.each([
    [[], /^Usage: hub <command>/m],
    [['nope'], /^hub: Unknown command "nope"\.\nRun "hub --help" for usage\.\n$/],
    [['--nope'], /^hub: Unknown option "--nope"\./],
    [['--version', 'extra'], /--version takes no arguments/],
    [['daemon'], /^Usage: hub daemon <command>/m],
    [['daemon', 'stop'], /^hub: Unknown command "stop"\.\nRun "hub daemon --help" for usage\.\n$/],
    [
      ['daemon', 'enroll', '--name', 'a', '--nope'],
      /^hub: Unknown option '--nope'\.\nRun "hub daemon enroll --help" for usage\.\n$/,
    ],
    [['daemon', 'enroll', '--name'], /--name <value>' argument missing/],
    [
      ['daemon', 'run', 'http://a', 'http://b'],
      /^hub: Unexpected argument "http:\/\/b"\.\nRun "hub daemon run --help" for usage\.\n$/,
    ],
    [['daemon', 'run', '--replace'], /Unknown option '--replace'/],
  ])('%j is a usage error: exit 2', async (args, message) => {
    const { code, stdout, stderr } = await hub(args, { env });
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(message);
  });

  it.each([
    [
      ['daemon', '--help'],
      [/^Usage: hub daemon <command>/m, /^ {2}enroll {3}\S/m, /^ {2}run {6}\S/m, /daemons\.json .*mode 0600/],
    ],
    [
      ['daemon', 'enroll', '--help'],
      [
        /^Usage: hub daemon enroll \[origin\] --name NAME \[--replace\] \[--config FILE\] \[--json\]$/m,
        /HUB_ENROLLMENT_TOKEN/,
        /no option for it/,
        /^ {2}--replace/m,
        /command: \[claude, -p/,
        /^Exit codes:/m,
      ],
    ],
    [
      ['daemon', 'run', '-h'],
      [
        /^Usage: hub daemon run \[origin\] \[--config FILE\] \[--metrics-port PORT \[--metrics-host HOST\]\]$/m,
        /^ {2}--metrics-host HOST +The address they are served on \(default: 127\.0\.0\.1\)/m,
        /hub_daemon_hub_request_duration_seconds\{kind\}/,
        /HUB_INPUT_<NAME>/,
        /SIGTERM/,
        /timed_out/,
        /concurrency: 1/,
        /^Exit codes:/m,
      ],
    ],
  ])('%j prints its help', async (args, patterns) => {
    const { code, stdout } = await hub(args);
    expect(code).toBe(0);
    for (const pattern of patterns) expect(stdout).toMatch(pattern);
  });
});

describe('hub daemon enroll', () => {
  let fake: FakeHub;

  beforeEach(async () => {
    fake = new FakeHub();
    await fake.start();
  });

  afterEach(() => fake.stop());

  const enroll = (args: string[], options: { input?: string; env?: Record<string, string> } = {}) =>
    hub(['daemon', 'enroll', fake.url, '--config', writeConfig(), ...args], {
      input: options.input,
      env: { ...env, ...options.env },
    });

  it('reads the token from standard input, enrolls with a new key pair and the runtimes of the config, and stores the identity', async () => {
    const { code, stdout, stderr } = await enroll(['--name', 'dev-box'], { input: `  ${TOKEN}  \nsecond line\n` });
    expect(stderr).toBe('');
    expect(code).toBe(0);

    expect(fake.requests).toHaveLength(1);
    const [request] = fake.requests;
    expect(request?.headers['content-type']).toBe('application/json');
    const body = request?.body as Record<string, unknown>;
    expect(body).toEqual({
      token: TOKEN,
      name: 'dev-box',
      publicKey: { kty: 'OKP', crv: 'Ed25519', x: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) },
      runtimes: [
        { provider: 'claude', modes: ['edit', 'plan'] },
        { provider: 'codex', models: ['o3'] },
      ],
    });

    const path = join(env.HUB_CONFIG_DIR as string, 'daemons.json');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(env.HUB_CONFIG_DIR as string).mode & 0o777).toBe(0o700);
    const stored = JSON.parse(readFileSync(path, 'utf8')).daemons[fake.url];
    expect(stored).toEqual({
      origin: fake.url,
      daemonId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'dev-box',
      privateKey: expect.stringMatching(/^-----BEGIN PRIVATE KEY-----\n/),
      publicKey: body.publicKey,
      enrolledAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    // The private key stored is the half of the public key the hub got.
    expect(createPublicKey(createPrivateKey(stored.privateKey)).export({ format: 'jwk' }).x).toBe(
      (body.publicKey as { x: string }).x,
    );

    expect(stdout).toContain(`Enrolled daemon dev-box (id ${stored.daemonId}) with ${fake.url}.`);
    expect(stdout).toContain('Runtimes: claude (modes edit, plan), codex (models o3)');
    expect(stdout).toContain(`Identity stored in ${path}.`);
    expect(stdout).toContain(`Start it with: hub daemon run ${fake.url} --config ${join(dir, 'daemon.yml')}`);
  });

  it('prefers HUB_ENROLLMENT_TOKEN to standard input', async () => {
    const { code } = await enroll(['--name', 'dev-box'], {
      input: 'hub_et_fromstdin\n',
      env: { HUB_ENROLLMENT_TOKEN: TOKEN },
    });
    expect(code).toBe(0);
    expect((fake.requests[0]?.body as { token: string }).token).toBe(TOKEN);
  });

  it.each([[['--token', TOKEN]], [[`--token=${TOKEN}`]], [['--enrollment-token', TOKEN]]])(
    'never takes the token as an option: %j',
    async (args) => {
      const { code, stderr } = await enroll(['--name', 'dev-box', ...args]);
      expect(code).toBe(2);
      expect(stderr).toMatch(/The enrollment token is never an option/);
      expect(stderr).not.toContain(TOKEN);
      expect(fake.requests).toEqual([]);
    },
  );

  it.each([
    ['', /No enrollment token: set HUB_ENROLLMENT_TOKEN or pipe the token on standard input/],
    ['\n', /No enrollment token/],
    [
      'hub_pk_0123456789\n',
      /not an enrollment token \(they start with hub_et_\): that is a credential that issues enrollment tokens/,
    ],
    ['something else\n', /not an enrollment token/],
  ])('refuses a missing or wrong token %j before calling the hub: exit 2', async (input, message) => {
    const { code, stderr } = await enroll(['--name', 'dev-box'], { input });
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
    expect(stderr).not.toContain('0123456789');
    expect(fake.requests).toEqual([]);
  });

  it('suggests --replace when the name is taken, and sends replace with it', async () => {
    fake.enrollAnswer = (body) =>
      body.replace === true
        ? undefined
        : {
            status: 409,
            body: { title: 'Conflict', status: 409, detail: 'taken', code: 'daemon_name_taken', requestId: 'req-1' },
          };
    const taken = await enroll(['--name', 'dev-box'], { input: `${TOKEN}\n` });
    expect(taken.code).toBe(1);
    expect(taken.stderr).toMatch(/already named "dev-box".*run again with --replace.*\(request id req-1\)/);

    const replaced = await enroll(['--name', 'dev-box', '--replace'], { input: `${TOKEN}\n` });
    expect(replaced.code).toBe(0);
    expect((fake.requests[1]?.body as { replace: boolean }).replace).toBe(true);
  });

  it('says why the hub refused a replacement (a member replacing a daemon someone else enrolled)', async () => {
    fake.enrollAnswer = () => ({
      status: 409,
      body: {
        title: 'Daemon name taken',
        status: 409,
        detail: 'An active daemon of the organization is named "dev-box", enrolled by someone else.',
        code: 'daemon_name_taken',
        requestId: 'req-2',
      },
    });
    const refused = await enroll(['--name', 'dev-box', '--replace'], { input: `${TOKEN}\n` });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /The hub refused to replace the daemon "dev-box": An active daemon .* enrolled by someone else\. \(the token was not used up\)\. \(request id req-2\)/,
    );
    expect(refused.stderr).not.toMatch(/run again with --replace/);
  });

  it('says why the hub refused the token or the request: exit 1', async () => {
    fake.enrollAnswer = () => ({
      status: 401,
      body: {
        title: 'Unauthorized',
        status: 401,
        detail: 'The enrollment token is unknown, already used, expired.',
        code: 'enrollment_token_invalid',
      },
    });
    const refused = await enroll(['--name', 'dev-box'], { input: `${TOKEN}\n` });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^hub: The hub refused the enrollment token: The enrollment token is unknown, already used, expired\.\n$/,
    );

    fake.enrollAnswer = () => ({
      status: 400,
      body: {
        title: 'Bad Request',
        status: 400,
        detail: 'The request is invalid.',
        code: 'invalid_request',
        issues: [{ pointer: '/runtimes/0/modes', code: 'request.type', message: 'modes must be a list.' }],
      },
    });
    const invalid = await enroll(['--name', 'dev-box'], { input: `${TOKEN}\n` });
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(
      /The hub refused the enrollment request: The request is invalid\.\n {2}\/runtimes\/0\/modes: modes must be a list\./,
    );
    expect(invalid.stderr).not.toContain(TOKEN);
  });

  it('says when the hub cannot be reached: exit 1, nothing stored', async () => {
    const url = fake.url;
    await fake.stop();
    const { code, stderr } = await hub(['daemon', 'enroll', url, '--name', 'dev-box', '--config', writeConfig()], {
      input: `${TOKEN}\n`,
      env,
    });
    expect(code).toBe(1);
    expect(stderr).toMatch(new RegExp(`Enrollment with ${url} failed: cannot reach ${url}: ECONNREFUSED`));
    expect(() => statSync(join(env.HUB_CONFIG_DIR as string, 'daemons.json'))).toThrow();
  });

  it('takes the hub from HUB_URL, normalized, when there is no argument', async () => {
    const { code } = await hub(['daemon', 'enroll', '--name', 'dev-box', '--config', writeConfig()], {
      input: `${TOKEN}\n`,
      env: { ...env, HUB_URL: `${fake.url.toUpperCase().replace('HTTP://', 'http://')}/` },
    });
    expect(code).toBe(0);
    expect(
      Object.keys(JSON.parse(readFileSync(join(env.HUB_CONFIG_DIR as string, 'daemons.json'), 'utf8')).daemons),
    ).toEqual([fake.url]);
  });

  it.each([
    [['ftp://hub.example.com', '--name', 'dev-box'], /"ftp:\/\/hub.example.com" is not a hub URL/],
    [['--name', 'Dev Box'], /--name "Dev Box": a name is 1 to 63 lowercase letters/],
    [[], /--name is required/],
  ])('refuses %j with exit 2 before reading a token', async (args, message) => {
    const { code, stderr } = await hub(['daemon', 'enroll', ...args, '--config', writeConfig()], {
      input: `${TOKEN}\n`,
      env,
    });
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
  });

  it('refuses an invalid or missing config with exit 2, naming the file, line and key', async () => {
    const bad = writeConfig('providers:\n  claude:\n    command: claude\n');
    const invalid = await hub(['daemon', 'enroll', fake.url, '--name', 'dev-box', '--config', bad], {
      input: `${TOKEN}\n`,
      env,
    });
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain(
      `hub: The daemon config is invalid:\n  ${bad}:3:14: providers.claude.command: must be a list of non-empty strings`,
    );

    const missing = await hub(['daemon', 'enroll', fake.url, '--name', 'dev-box'], { input: `${TOKEN}\n`, env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(
      `hub: No daemon config at ${join(env.HUB_CONFIG_DIR as string, 'daemon.yml')}. Create it (or pass --config FILE), for example:`,
    );
    expect(fake.requests).toEqual([]);
  });
});
