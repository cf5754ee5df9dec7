// `--json` of every reporting command (issue 16) against a real hub, with a real enrolled
// reference daemon whose agent prints numbered lines: hub deploy (its issues in the shape of
// hub validate --json's), hub cancel, hub logs, hub logout, hub connect and hub daemon enroll.
// Each output must parse as one JSON object with the fields its --help documents; standard error
// and exit codes stay what they are without --json.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { saveCredential } from '../src/credentials.js';
import { call, setUp } from '../../server/test/support/client.js';
import { hubOn } from '../../server/test/support/hub.js';
import { hub as runHub, start, type Finished, type Running } from './support/cli.js';
import { configurationYaml, triggerYaml } from './support/documents.js';
import { closedOrigin } from './support/origins.js';
import { hubIn, writeTree } from './support/repo.js';

/** Prints HUB_INPUT_LINES numbered lines, then sleeps HUB_INPUT_SLEEP_MS. */
const AGENT = `const lines = Number(process.env.HUB_INPUT_LINES ?? 0);
for (let i = 1; i <= lines; i++) process.stdout.write(process.env.HUB_STEP_ID + ' line ' + i + '\\n');
await new Promise((resolve) => setTimeout(resolve, Number(process.env.HUB_INPUT_SLEEP_MS ?? 0)));
`;
const CONFIG = (agent: string) =>
  `providers:\n  codex:\n    command: ${JSON.stringify([process.execPath, agent])}\n    modes: [edit]\n`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISSUE_KEYS = ['file', 'line', 'column', 'pointer', 'code', 'message', 'severity'];

/** The project's configuration: a manual trigger whose one step runs the agent on dev-box. */
const runnable = (cwd: string) => `environments:
  - { name: laptop, kind: daemon, daemon: dev-box, cwd: ${JSON.stringify(cwd)} }
triggers:
  - name: talk
    on: { manual.run: { inputs: { lines: { description: Lines, required: false, default: "2" }, sleep_ms: { description: Sleep, required: false, default: "0" } } } }
    max_runtime: 1h
    filters: { from_users: [dev-lead] }
    steps:
      - { id: say, environment: laptop, agent: { provider: codex }, prompt: [ { text: "Go." } ] }
`;

let hub: Awaited<ReturnType<typeof hubOn>>;
let ctx: Awaited<ReturnType<typeof setUp>>;
let root: string;
let configDir: string;
let daemonConfig: string;
let daemon: Running | undefined;
let enrolled: Finished;
let triggerCount = 0;
/** A project of its own for the configurations deployed, so that the run tests keep theirs. */
const DEPLOYED = 'deployed';

/** The one JSON value of standard output (a second value, or anything else, fails the parse). */
function parsed(output: Finished): Record<string, unknown> {
  return JSON.parse(output.stdout) as Record<string, unknown>;
}

const cli = (args: string[], env: Record<string, string> = {}) =>
  runHub(args, { env: { HUB_CONFIG_DIR: configDir, HUB_API_KEY: ctx.key, ...env } });
const runOf = async (runId: string) =>
  (await call(hub, 'GET', `/api/v1/runs/${runId}`, { token: ctx.key })).body as {
    status: string;
    executions: { status: string }[];
  };
async function eventually(
  runId: string,
  done: (run: { status: string; executions: { status: string }[] }) => boolean,
): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const run = await runOf(runId);
    if (done(run)) return;
    if (Date.now() > deadline)
      throw new Error(`run ${runId} is ${JSON.stringify(run)}; daemon stderr:\n${daemon?.output().stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  hub = await hubOn('external');
  ctx = await setUp(hub);
  root = mkdtempSync(join(tmpdir(), 'hub-json-'));
  configDir = join(root, 'config');
  mkdirSync(join(root, 'work'));
  writeFileSync(join(root, 'agent.mjs'), AGENT);
  daemonConfig = join(root, 'daemon.yml');
  writeFileSync(daemonConfig, CONFIG(join(root, 'agent.mjs')));
  const project = await call(hub, 'POST', `/api/admin/v1/organizations/${ctx.org}/projects`, {
    token: hub.adminToken,
    body: { slug: DEPLOYED, name: DEPLOYED },
  });
  expect(project.status, project.text).toBe(201);
  const token = await call(hub, 'POST', '/api/v1/daemons/enrollment-tokens', { token: ctx.key });
  enrolled = await runHub(['daemon', 'enroll', hub.url, '--name', 'dev-box', '--config', daemonConfig, '--json'], {
    input: `${token.body.token}\n`,
    env: { HUB_CONFIG_DIR: configDir },
  });
  expect(enrolled.code, enrolled.stderr).toBe(0);
  const installed = await call(hub, 'POST', '/api/v1/configurations/install', {
    token: ctx.key,
    body: { projectSlug: ctx.project, yaml: runnable(join(root, 'work')) },
  });
  expect(installed.status, installed.text).toBe(201);
  daemon = start(['daemon', 'run', hub.url, '--config', daemonConfig], { env: { HUB_CONFIG_DIR: configDir } });
  await daemon.waitFor(/Connected; waiting for assignments\./, 60_000);
}, 180_000);

afterAll(async () => {
  if (daemon !== undefined && daemon.child.exitCode === null) {
    daemon.child.kill('SIGTERM');
    await daemon.exited;
  }
  await hub?.close();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

describe('hub daemon enroll --json and hub connect --json', () => {
  it('enroll: the daemon, its runtimes, the files used, and no identity replaced', () => {
    expect(enrolled.stderr).toBe('');
    expect(parsed(enrolled)).toEqual({
      origin: hub.url,
      daemonId: expect.stringMatching(UUID),
      name: 'dev-box',
      runtimes: [{ provider: 'codex', modes: ['edit'] }],
      config: daemonConfig,
      identityFile: join(configDir, 'daemons.json'),
      replaced: null,
    });
  });

  it('connect: the same object, without the line about the token; a second connect names the identity it replaced', async () => {
    const dir = join(root, 'connect-config');
    const first = await cli(['connect', hub.url, '--name', 'json-box', '--config', daemonConfig, '--json'], {
      HUB_CONFIG_DIR: dir,
    });
    expect(first.code, first.stderr).toBe(0);
    const report = parsed(first);
    expect(report).toEqual({
      origin: hub.url,
      daemonId: expect.stringMatching(UUID),
      name: 'json-box',
      runtimes: [{ provider: 'codex', modes: ['edit'] }],
      config: daemonConfig,
      identityFile: join(dir, 'daemons.json'),
      replaced: null,
    });

    const again = await cli(['connect', hub.url, '--name', 'json-box-2', '--config', daemonConfig, '--json'], {
      HUB_CONFIG_DIR: dir,
    });
    expect(again.code, again.stderr).toBe(0);
    expect(parsed(again)).toMatchObject({
      name: 'json-box-2',
      replaced: { name: 'json-box', daemonId: report.daemonId },
    });
  });
});

describe('hub deploy --json', () => {
  let repo: string;
  const fresh = (label: string) => `${label}-${++triggerCount}`;
  const deploy = (args: string[]) =>
    hubIn(repo, ['deploy', hub.url, ...args, '--json'], { HUB_CONFIG_DIR: configDir, HUB_API_KEY: ctx.key });

  beforeEach(() => {
    repo = mkdtempSync(join(root, 'repo-'));
    mkdirSync(join(repo, '.git'));
  });

  it('trigger files installed: each with its trigger name and version, ok, no issues; standard error empty', async () => {
    const [a, b] = [fresh('alpha'), fresh('beta')];
    writeTree(repo, {
      '.hub/triggers/a.yml': triggerYaml(a, { daemon: 'dev-box' }),
      '.hub/triggers/b.yml': triggerYaml(b, { daemon: 'dev-box' }),
    });
    const done = await deploy([]);
    expect({ code: done.code, stderr: done.stderr }).toEqual({ code: 0, stderr: '' });
    const report = parsed(done);
    expect(report).toEqual({
      origin: hub.url,
      project: null,
      dryRun: false,
      ok: true,
      files: expect.any(Array),
      issues: [],
    });
    expect(report.files).toHaveLength(2);
    expect(report.files).toEqual(
      expect.arrayContaining([
        { path: '.hub/triggers/a.yml', kind: 'trigger', status: 'installed', trigger: a, version: 1 },
        { path: '.hub/triggers/b.yml', kind: 'trigger', status: 'installed', trigger: b, version: 1 },
      ]),
    );
  });

  it('a dry run: each file valid, with its trigger name, nothing installed', async () => {
    const name = fresh('dry');
    writeTree(repo, { '.hub/triggers/a.yml': triggerYaml(name, { daemon: 'dev-box' }) });
    const done = await deploy(['--dry-run']);
    expect(done.code, done.stderr).toBe(0);
    expect(parsed(done)).toEqual({
      origin: hub.url,
      project: null,
      dryRun: true,
      ok: true,
      files: [{ path: '.hub/triggers/a.yml', kind: 'trigger', status: 'valid', trigger: name }],
      issues: [],
    });
    expect((await hub.sql`select 1 from triggers where name = ${name}`).length).toBe(0);
  });

  it('an invalid trigger file: exit 1, ok false, its issues as hub validate --json has them; the other file valid and not installed', async () => {
    const [good, bad] = [fresh('good'), fresh('bad')];
    writeTree(repo, {
      '.hub/triggers/good.yml': triggerYaml(good, { daemon: 'dev-box' }),
      '.hub/triggers/bad.yml': triggerYaml(bad, { daemon: 'dev-box' }).replace('filters:', 'filter:'),
    });
    const done = await deploy([]);
    expect(done.code).toBe(1);
    expect(done.stderr).toMatch(/^\.hub\/triggers\/bad\.yml: invalid: /m);
    const report = parsed(done);
    expect(report).toMatchObject({ ok: false, dryRun: false });
    expect(report.files).toEqual(
      expect.arrayContaining([
        { path: '.hub/triggers/good.yml', kind: 'trigger', status: 'valid', trigger: good },
        { path: '.hub/triggers/bad.yml', kind: 'trigger', status: 'invalid', error: expect.any(String) },
      ]),
    );
    const issues = report.issues as Record<string, unknown>[];
    expect(issues.length).toBeGreaterThan(0);
    for (const issue of issues) {
      expect(ISSUE_KEYS).toEqual(expect.arrayContaining(Object.keys(issue)));
      expect(issue).toMatchObject({
        file: '.hub/triggers/bad.yml',
        severity: 'error',
        pointer: expect.any(String),
        code: expect.any(String),
        message: expect.any(String),
      });
    }

    // The same compiler offline: the issues agree, but for the message's wording.
    const offline = await hubIn(repo, ['validate', '.hub/triggers/bad.yml', '--json']);
    const where = (list: Record<string, unknown>[]) =>
      list.map(({ file, line, column, pointer, code, severity }) => ({ file, line, column, pointer, code, severity }));
    expect(where(issues)).toEqual(where((JSON.parse(offline.stdout) as { issues: Record<string, unknown>[] }).issues));
    expect(issues).toContainEqual(
      expect.objectContaining({ code: 'schema.unknown_key', line: expect.any(Number), column: expect.any(Number) }),
    );
  });

  it('two trigger files with one name: the second has the issue hub validate gives it, but its position', async () => {
    const name = fresh('twice');
    writeTree(repo, {
      '.hub/triggers/a.yml': triggerYaml(name, { daemon: 'dev-box' }),
      '.hub/triggers/b.yml': triggerYaml(name, { daemon: 'dev-box' }),
    });
    const done = await deploy([]);
    expect(done.code).toBe(1);
    const report = parsed(done);
    expect(report.ok).toBe(false);
    const offline = JSON.parse((await hubIn(repo, ['validate', '--json'])).stdout) as {
      issues: Record<string, unknown>[];
    };
    expect(offline.issues).toEqual([
      expect.objectContaining({ file: '.hub/triggers/b.yml', code: 'trigger.duplicate_name' }),
    ]);
    const [{ line: _line, column: _column, ...expected }] = offline.issues as [Record<string, unknown>];
    expect(report.issues).toEqual([expected]);
    expect(report.files).toContainEqual({
      path: '.hub/triggers/b.yml',
      kind: 'trigger',
      status: 'invalid',
      trigger: name,
      error: expected.message,
    });
  });

  it('a configuration: installed with its version and versionId; a refused one has its issues in the partial they concern', async () => {
    // dev-box runs codex only.
    writeTree(repo, {
      '.hub/config.yml': configurationYaml(['testing.md'], { daemon: 'dev-box' }).replace(
        'provider: claude',
        'provider: codex',
      ),
      '.hub/partials/testing.md': 'Run the tests.\n',
    });
    const done = await deploy(['--project', DEPLOYED]);
    expect(done.code, done.stderr).toBe(0);
    expect(parsed(done)).toEqual({
      origin: hub.url,
      project: DEPLOYED,
      dryRun: false,
      ok: true,
      files: [
        {
          path: '.hub/config.yml',
          kind: 'configuration',
          status: 'installed',
          version: expect.any(Number),
          versionId: expect.any(String),
        },
      ],
      issues: [],
    });

    writeTree(repo, { '.hub/partials/testing.md': 'Ask {{ reviewer }}.\n' });
    const refused = await deploy(['--project', DEPLOYED, '--dry-run']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^hub: Validating \.hub\/config\.yml with 1 partial for project \S+ failed: /m);
    const report = parsed(refused);
    expect(report).toMatchObject({
      ok: false,
      dryRun: true,
      files: [{ path: '.hub/config.yml', kind: 'configuration', status: 'invalid', error: expect.any(String) }],
    });
    expect(report.issues).toContainEqual(
      expect.objectContaining({
        file: '.hub/partials/testing.md',
        code: 'template.unknown_placeholder',
        line: 1,
        severity: 'error',
      }),
    );
  });

  it('a failure of the whole deploy prints nothing on standard output', async () => {
    writeTree(repo, { '.hub/triggers/a.yml': triggerYaml(fresh('lost')) });
    const done = await hubIn(repo, ['deploy', await closedOrigin(), '--json'], {
      HUB_CONFIG_DIR: configDir,
      HUB_API_KEY: ctx.key,
    });
    expect(done).toMatchObject({ code: 1, stdout: '' });
    expect(done.stderr).toMatch(/could not reach the hub/);
  });
});

describe('hub logs --json and hub cancel --json', () => {
  const dispatch = async (input: string) => {
    const done = await cli([
      'run',
      'talk',
      hub.url,
      '--project',
      ctx.project,
      '--actor',
      'dev-lead',
      '--input',
      input,
      '--json',
    ]);
    expect(done.code, done.stderr).toBe(0);
    return parsed(done).triggerRunId as string;
  };

  it('logs: the run and each step with its output as text', async () => {
    const runId = await dispatch('lines=3');
    await eventually(runId, (run) => run.status !== 'running');
    const done = await cli(['logs', runId, hub.url, '--json']);
    expect({ code: done.code, stderr: done.stderr }).toEqual({ code: 0, stderr: '' });
    const report = parsed(done);
    expect(report).toEqual({
      origin: hub.url,
      run: expect.objectContaining({ triggerRunId: runId, status: 'succeeded' }),
      steps: [expect.any(Object)],
    });
    const executions = (report.run as { executions: { executionId: string }[] }).executions;
    expect(report.steps).toEqual([
      {
        stepId: 'say',
        executionId: executions[0]?.executionId,
        status: 'succeeded',
        output: 'say line 1\nsay line 2\nsay line 3\n',
      },
    ]);
  });

  it('logs --follow --json: one event a line, from the step to the run as it ended; standard error as without --json', async () => {
    const runId = await dispatch('lines=3');
    const done = await cli(['logs', runId, hub.url, '--follow', '--json']);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout.endsWith('\n')).toBe(true);
    const events = done.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const executionId = events[0]?.executionId;
    expect(events[0]).toEqual({
      type: 'step',
      stepId: 'say',
      executionId: expect.stringMatching(UUID),
      daemon: 'dev-box',
    });
    const outputs = events.slice(1, -2);
    for (const event of outputs) expect(event).toEqual({ type: 'output', executionId, text: expect.any(String) });
    expect(outputs.map((event) => event.text).join('')).toBe('say line 1\nsay line 2\nsay line 3\n');
    expect(events.at(-2)).toEqual({
      type: 'step_end',
      stepId: 'say',
      executionId,
      status: 'succeeded',
      exitCode: 0,
      message: null,
    });
    expect(events.at(-1)).toEqual({
      type: 'run',
      origin: hub.url,
      run: expect.objectContaining({ triggerRunId: runId, status: 'succeeded' }),
    });
    expect(done.stderr).toBe(
      `==> step say on daemon dev-box (execution ${executionId as string})\n==> step say succeeded, exit code 0\nRun ${runId} succeeded.\n`,
    );
  });

  it('run --follow --json: the dispatch first, then the events of logs --follow --json, and the exit code of the run', async () => {
    const done = await cli([
      'run',
      'talk',
      hub.url,
      '--project',
      ctx.project,
      '--actor',
      'dev-lead',
      '--input',
      'lines=2',
      '--follow',
      '--json',
    ]);
    expect(done.code, done.stderr).toBe(0);
    const events = done.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events[0]).toEqual(
      expect.objectContaining({
        type: 'dispatched',
        origin: hub.url,
        replayed: false,
        triggerRunId: expect.stringMatching(UUID),
      }),
    );
    expect(events.map((event) => event.type).filter((type) => type !== 'output')).toEqual([
      'dispatched',
      'step',
      'step_end',
      'run',
    ]);
    expect(
      events
        .filter((event) => event.type === 'output')
        .map((event) => event.text)
        .join(''),
    ).toBe('say line 1\nsay line 2\n');
    expect(events.at(-1)).toEqual({
      type: 'run',
      origin: hub.url,
      run: expect.objectContaining({ triggerRunId: events[0]?.triggerRunId, status: 'succeeded' }),
    });
    expect(done.stderr).toMatch(/^Run \S+ dispatched; following its output/);
  });

  it('cancel: the run as the hub answered, its cancellation requested; a run that has ended is an error with nothing on standard output', async () => {
    const runId = await dispatch('lines=1 sleep_ms=120000');
    await eventually(runId, (run) => run.executions[0]?.status === 'running');
    const done = await cli(['cancel', runId, hub.url, '--json']);
    expect({ code: done.code, stderr: done.stderr }).toEqual({ code: 0, stderr: '' });
    const report = parsed(done);
    expect(report).toEqual({
      origin: hub.url,
      run: expect.objectContaining({ triggerRunId: runId, cancelRequestedAt: expect.any(String) }),
    });
    expect(['running', 'cancelled']).toContain((report.run as { status: string }).status);

    await eventually(runId, (run) => run.status === 'cancelled');
    const again = await cli(['cancel', runId, hub.url, '--json']);
    expect(again).toEqual({
      code: 1,
      stdout: '',
      stderr: `hub: Run ${runId} has already ended (cancelled); there is nothing to cancel.\n`,
    });
  }, 90_000);
});

describe('hub logout --json', () => {
  let dir: string;
  const logout = (args: string[], env: Record<string, string> = {}) =>
    runHub(['logout', ...args, '--json'], { env: { HUB_CONFIG_DIR: dir, ...env } });

  beforeEach(() => {
    dir = mkdtempSync(join(root, 'logout-'));
  });

  it('a CLI credential: removed, and revoked by the hub', async () => {
    await saveCredential(dir, hub.url, 'hub_cli_0000000000000000000000000000secret', 'cli', { activate: true });
    const done = await logout([]);
    expect({ code: done.code, stderr: done.stderr }).toEqual({ code: 0, stderr: '' });
    expect(parsed(done)).toEqual({
      origin: hub.url,
      removed: 'cli',
      revoked: true,
      note: 'the hub revoked it',
      apiKeyInEnvironment: false,
    });
  });

  it('a CLI credential of a hub that cannot be reached: removed, not revoked, and the note says what to do', async () => {
    const gone = await closedOrigin();
    await saveCredential(dir, gone, 'hub_cli_0000000000000000000000000000secret', 'cli', { activate: true });
    expect(parsed(await logout([gone]))).toEqual({
      origin: gone,
      removed: 'cli',
      revoked: false,
      note: expect.stringMatching(/^it was not revoked .*revoke it on your account page/),
      apiKeyInEnvironment: false,
    });
  });

  it('an API key: removed, no revocation asked for; HUB_API_KEY still set is said', async () => {
    await saveCredential(dir, hub.url, ctx.key, 'api_key', { activate: true });
    expect(parsed(await logout([], { HUB_API_KEY: ctx.key }))).toEqual({
      origin: hub.url,
      removed: 'api_key',
      revoked: null,
      note: null,
      apiKeyInEnvironment: true,
    });
  });

  it('nothing stored: no origin, nothing removed, exit 0', async () => {
    expect(parsed(await logout([]))).toEqual({
      origin: null,
      removed: null,
      revoked: null,
      note: null,
      apiKeyInEnvironment: false,
    });
    expect(parsed(await logout([hub.url]))).toEqual({
      origin: hub.url,
      removed: null,
      revoked: null,
      note: null,
      apiKeyInEnvironment: false,
    });
  });
});
