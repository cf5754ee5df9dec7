// hub run, hub runs, hub logs and hub cancel as a user runs them: the CLI as a child process,
// against a real hub, with a real enrolled reference daemon whose agent is a small script that
// prints numbered lines.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardStore } from '../../server/src/dashboard/store.js';
import { call, setUp } from '../../server/test/support/client.js';
import { cliLogin } from '../../server/test/support/cli-login.js';
import { hubOn } from '../../server/test/support/hub.js';
import { saveCredential } from '../src/credentials.js';
import { hub as runHub, start, type Running } from './support/cli.js';
import { hubIn, writeTree } from './support/repo.js';

/** Prints HUB_INPUT_LINES numbered lines (HUB_INPUT_PAUSE_MS apart), then "boom" on stderr and exits 3 if asked, or sleeps silently. */
const AGENT = `const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const lines = Number(process.env.HUB_INPUT_LINES ?? 0);
for (let i = 1; i <= lines; i++) {
  process.stdout.write(process.env.HUB_STEP_ID + ' line ' + i + '\\n');
  await sleep(Number(process.env.HUB_INPUT_PAUSE_MS ?? 0));
}
if (process.env.HUB_INPUT_FAIL === 'yes') {
  process.stderr.write('boom\\n');
  process.exit(3);
}
await sleep(Number(process.env.HUB_INPUT_SLEEP_MS ?? 0));
`;

const ME = userInfo().username;

const configuration = (cwd: string) => {
  const inputs = `{ lines: { description: Lines, required: false, default: "3" }, pause_ms: { description: Pause, required: false, default: "0" }, fail: { description: Fail, required: false, default: "no" }, sleep_ms: { description: Sleep, required: false, default: "0" } }`;
  const trigger = (name: string, steps: string[], idle = '10m', users = `[dev-lead, ${JSON.stringify(ME)}]`) => `
  - name: ${name}
    on: { manual.run: { inputs: ${inputs} } }
    max_runtime: 1h
    filters: { from_users: ${users} }
    steps:
${steps.map((id) => `      - { id: ${id}, environment: laptop, idle_timeout: ${idle}, agent: { provider: codex }, prompt: [ { text: "Go." } ] }`).join('\n')}`;
  return `
environments:
  - { name: laptop, kind: daemon, daemon: dev-box, cwd: ${JSON.stringify(cwd)} }
triggers:${trigger('chatty', ['talk'])}${trigger('two', ['first', 'second'])}${trigger('idle', ['wait'], '1s')}${trigger('strict', ['talk'], '10m', '[dev-lead]')}${trigger('for-ada', ['talk'], '10m', '[dev-lead, Ada]')}${trigger('for-nina', ['talk'], '10m', '[dev-lead, nina]')}
`;
};

const numbered = (step: string, count: number) =>
  Array.from({ length: count }, (_, index) => `${step} line ${index + 1}\n`).join('');

describe('hub run, runs, logs and cancel with a real hub and daemon', () => {
  let hub: Awaited<ReturnType<typeof hubOn>>;
  let ctx: Awaited<ReturnType<typeof setUp>>;
  let dir: string;
  let daemon: Running;
  let env: Record<string, string>;

  const cli = (args: string[]) => runHub(args, { env });
  const runOf = async (runId: string) => (await call(hub, 'GET', `/api/v1/runs/${runId}`, { token: ctx.key })).body;
  const eventually = async (
    runId: string,
    done: (run: { status: string; executions: { status: string }[] }) => boolean,
  ) => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const run = await runOf(runId);
      if (done(run)) return run;
      if (Date.now() > deadline)
        throw new Error(`run ${runId} is ${JSON.stringify(run)}; daemon stderr:\n${daemon.output().stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  /** The exit code of a command that should end by itself within 20 s; else what it and the daemon printed. */
  const exitOf = async (running: Running) => {
    const timeout = new Promise<never>((_, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `still running after 20 s:\n${JSON.stringify(running.output())}\ndaemon stderr:\n${daemon.output().stderr}`,
            ),
          ),
        20_000,
      );
      void running.exited.then(() => clearTimeout(timer));
    });
    return Promise.race([running.exited, timeout]);
  };
  /** Dispatches without following; the run id. */
  const dispatch = async (trigger: string, input: string) => {
    const done = await cli([
      'run',
      trigger,
      hub.url,
      '--project',
      ctx.project,
      '--actor',
      'dev-lead',
      '--input',
      input,
    ]);
    expect(done.code, done.stderr).toBe(0);
    return done.stdout.trim();
  };

  beforeAll(async () => {
    hub = await hubOn('embedded');
    ctx = await setUp(hub);
    dir = mkdtempSync(join(tmpdir(), 'hub-run-e2e-'));
    mkdirSync(join(dir, 'work'));
    writeFileSync(join(dir, 'agent.mjs'), AGENT);
    const config = join(dir, 'daemon.yml');
    writeFileSync(
      config,
      `providers:\n  codex:\n    command: ${JSON.stringify([process.execPath, join(dir, 'agent.mjs')])}\n`,
    );
    env = { HUB_CONFIG_DIR: join(dir, 'config'), HUB_API_KEY: ctx.key };
    const token = await call(hub, 'POST', '/api/v1/daemons/enrollment-tokens', { token: ctx.key });
    const enrolled = await runHub(['daemon', 'enroll', hub.url, '--name', 'dev-box', '--config', config], {
      input: `${token.body.token}\n`,
      env: { HUB_CONFIG_DIR: env.HUB_CONFIG_DIR as string },
    });
    expect(enrolled.code, enrolled.stderr).toBe(0);
    const installed = await call(hub, 'POST', '/api/v1/configurations/install', {
      token: ctx.key,
      body: { projectSlug: ctx.project, yaml: configuration(join(dir, 'work')) },
    });
    expect(installed.status, installed.text).toBe(201);
    daemon = start(['daemon', 'run', hub.url, '--config', config], {
      env: { HUB_CONFIG_DIR: env.HUB_CONFIG_DIR as string },
    });
    await daemon.waitFor(/Connected; waiting for assignments\./);
  }, 120_000);

  afterAll(async () => {
    if (daemon !== undefined && daemon.child.exitCode === null) {
      daemon.child.kill('SIGTERM');
      await daemon.exited;
    }
    await hub?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  describe('hub run', () => {
    it('--follow shows every line of the agent in order exactly once, then the run succeeded, and exits 0', async () => {
      const { code, stdout, stderr } = await cli([
        'run',
        'chatty',
        hub.url,
        '--project',
        ctx.project,
        '--actor',
        'dev-lead',
        '--input',
        'lines=40 pause_ms=10',
        '--follow',
      ]);
      expect(code, stderr).toBe(0);
      expect(stdout).toBe(numbered('talk', 40));
      const runId = /^Run (\S+) dispatched; following its output/m.exec(stderr)?.[1] as string;
      const run = await runOf(runId);
      expect(run).toMatchObject({ status: 'succeeded', actor: 'dev-lead', inputs: { lines: '40' } });
      expect(stderr).toBe(
        [
          `Run ${runId} dispatched; following its output (Ctrl-C stops following; the run goes on).`,
          `The run's page in the dashboard: ${hub.url}/runs/${runId}`,
          `==> step talk on daemon dev-box (execution ${run.executions[0].executionId})`,
          '==> step talk succeeded, exit code 0',
          `Run ${runId} succeeded.`,
          '',
        ].join('\n'),
      );
    });

    it('--follow goes through the steps in order', async () => {
      const { code, stdout, stderr } = await cli([
        'run',
        'two',
        hub.url,
        '--project',
        ctx.project,
        '--actor',
        'dev-lead',
        '--input',
        'lines=5',
        '--follow',
      ]);
      expect(code, stderr).toBe(0);
      expect(stdout).toBe(numbered('first', 5) + numbered('second', 5));
      expect(stderr).toMatch(
        /==> step first on daemon dev-box[^\n]*\n==> step first succeeded, exit code 0\n==> step second on daemon dev-box[^\n]*\n==> step second succeeded, exit code 0\n/,
      );
    });

    it('--follow of a failing agent shows its stderr and exits 1; the later step never runs', async () => {
      const { code, stdout, stderr } = await cli([
        'run',
        'two',
        hub.url,
        '--project',
        ctx.project,
        '--actor',
        'dev-lead',
        '--input',
        'lines=2 fail=yes',
        '--follow',
      ]);
      expect(code).toBe(1);
      expect(stdout).toBe(`${numbered('first', 2)}boom\n`);
      expect(stderr).toMatch(/==> step first failed, exit code 3[^\n]*\nRun \S+ failed\.\n$/);
      expect(stderr).not.toContain('step second');
    });

    it('--follow exits 4 when the run times out', async () => {
      const { code, stderr } = await cli([
        'run',
        'idle',
        hub.url,
        '--project',
        ctx.project,
        '--actor',
        'dev-lead',
        '--input',
        'sleep_ms=60000',
        '--follow',
      ]);
      expect(code, stderr).toBe(4);
      expect(stderr).toMatch(/==> step wait timed out[^\n]*\nRun \S+ timed out\.\n$/);
    });

    it('without --follow prints the run id; with an API key the actor is the user name on this machine by default', async () => {
      const { code, stdout, stderr } = await cli(['run', 'chatty', hub.url, '--project', ctx.project]);
      expect(code, stderr).toBe(0);
      const runId = stdout.trim();
      expect(stdout).toMatch(/^[0-9a-f-]{36}\n$/);
      expect(stderr).toBe(
        `Run ${runId} dispatched as ${ME} (your user name on this machine). Follow it: hub logs ${runId} --follow ${hub.url}\n` +
          `The run's page in the dashboard: ${hub.url}/runs/${runId}\n`,
      );
      expect(await runOf(runId)).toMatchObject({
        trigger: 'chatty',
        actor: ME,
        deliveryKey: expect.stringMatching(/^hub-cli-[0-9a-f-]{36}$/),
      });
    });

    it('--json prints the dispatch; a delivery key given twice answers the first run again, and says so', async () => {
      const args = [
        'run',
        'chatty',
        hub.url,
        '--project',
        ctx.project,
        '--actor',
        'dev-lead',
        '--delivery-key',
        `twice-${Date.now()}`,
      ];
      const first = await cli([...args, '--json']);
      expect(first.code, first.stderr).toBe(0);
      const answer = JSON.parse(first.stdout);
      expect(answer).toMatchObject({
        origin: hub.url,
        replayed: false,
        configuredTriggerName: 'chatty',
        workflowStatus: 'running',
        triggerRunId: expect.any(String),
      });
      const again = await cli(args);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toBe(`${answer.triggerRunId}\n`);
      expect(again.stderr).toMatch(
        /^The delivery key twice-\d+ was used before: this is the run it started, not a new one\.\n/,
      );
    });

    it('names the actors the trigger allows when it refuses one, given or defaulted with an API key (exit 1)', async () => {
      const given = await cli(['run', 'chatty', hub.url, '--project', ctx.project, '--actor', 'stranger']);
      expect(given.code).toBe(1);
      expect(given.stderr).toMatch(
        new RegExp(
          `^hub: the trigger chatty accepts runs only from: dev-lead, ${ME}; run as one of them with --actor <name>\\.\n"stranger" is not among them\\.\nRequest id: [0-9a-f-]{36}\n$`,
        ),
      );
      const defaulted = await cli(['run', 'strict', hub.url, '--project', ctx.project]);
      expect(defaulted.code).toBe(1);
      expect(defaulted.stderr).toMatch(
        new RegExp(
          `^hub: the trigger strict accepts runs only from: dev-lead; run as one of them with --actor <name>\\.\nThe actor was your user name on this machine, ${ME}: the default with an API key, which is no person's\\.\n`,
        ),
      );
    });

    it.each([
      [['run', '--project', 'app'], /Give the trigger to run/],
      [['logs', 'not-a-run'], /"not-a-run" is not a run id/],
      [['cancel'], /Give the run id/],
      [['runs', '--status', 'done'], /--status is one of running, succeeded, failed, cancelled, timed_out\./],
      [['runs', '--source', 'cron'], /--source is one of manual, schedule, github\./],
      [['runs', '--limit', '0'], /--limit is a whole number from 1 to 200\./],
      [['runs', '--all', '--limit', '3'], /leave out --limit/],
    ])('hub %j is a usage error (exit 2)', async (args, message) => {
      const { code, stderr } = await cli(args);
      expect(code).toBe(2);
      expect(stderr).toMatch(message);
    });
  });

  describe('hub run as the person logged in', () => {
    /** A person of the organization, logged in with `hub login` (its credential stored as hub login stores it). */
    const loggedIn = async (name: string, email: string) => {
      const [org] = await hub.sql`select id from organizations where slug = ${ctx.org}`;
      const [account] =
        await hub.sql`insert into accounts (email, name, password_hash) values (${email}, ${name}, 'scrypt$x') returning id`;
      await hub.sql`insert into organization_members (organization_id, account_id, role) values (${org?.id}, ${account?.id}, 'member')`;
      const secret = await cliLogin(hub, dashboardStore(hub.sql), account?.id, org?.id);
      const configDir = join(dir, `config-${email}`);
      await saveCredential(configDir, hub.url, secret, 'cli', { activate: true });
      // In a directory of no repository (the test's temporary one) unless told.
      return (args: string[], cwd = dir) => hubIn(cwd, args, { HUB_CONFIG_DIR: configDir });
    };
    const runsOf = async (trigger: string) =>
      (await call(hub, 'GET', `/api/v1/runs?limit=200`, { token: ctx.key })).body.runs.filter(
        (run: { trigger: string }) => run.trigger === trigger,
      );
    let ada: (args: string[], cwd?: string) => ReturnType<typeof hubIn>;
    let nina: (args: string[], cwd?: string) => ReturnType<typeof hubIn>;

    beforeAll(async () => {
      ada = await loggedIn('Ada', 'ada.lovelace@example.com');
      nina = await loggedIn('Nina Newcomer', 'nina@example.com');
    });

    it('without --actor dispatches as their name at the hub when the allowlist has it', async () => {
      const { code, stdout, stderr } = await ada(['run', 'for-ada', '--project', ctx.project]);
      expect(code, stderr).toBe(0);
      const runId = stdout.trim();
      expect(stderr).toBe(
        `Run ${runId} dispatched as Ada (your name at the hub). Follow it: hub logs ${runId} --follow\n` +
          `The run's page in the dashboard: ${hub.url}/runs/${runId}\n`,
      );
      expect(await runOf(runId)).toMatchObject({ trigger: 'for-ada', actor: 'Ada' });
    });

    it('else as the first of their e-mail and its local part that the allowlist has, in one run', async () => {
      const { code, stdout, stderr } = await nina(['run', 'for-nina', '--project', ctx.project, '--json']);
      expect(code, stderr).toBe(0);
      const answer = JSON.parse(stdout);
      expect(answer).toMatchObject({ actor: 'nina', replayed: false, configuredTriggerName: 'for-nina' });
      expect(await runOf(answer.triggerRunId)).toMatchObject({ actor: 'nina' });
      // The refusal of "Nina Newcomer" started nothing: the one dispatch as nina is the trigger's only run.
      expect((await runsOf('for-nina')).map((run: { triggerRunId: string }) => run.triggerRunId)).toEqual([
        answer.triggerRunId,
      ]);
    });

    it('is refused with the names the trigger allows, and how to run as one, when none of theirs is (exit 1)', async () => {
      const { code, stdout, stderr } = await nina(['run', 'for-ada', '--project', ctx.project]);
      expect({ code, stdout }).toEqual({ code: 1, stdout: '' });
      expect(stderr).toMatch(
        new RegExp(
          [
            '^hub: the trigger for-ada accepts runs only from: dev-lead, Ada; run as one of them with --actor <name>\\.',
            'You are logged in as Nina Newcomer \\(nina@example\\.com\\), and none of Nina Newcomer, nina@example\\.com, nina is among them: to run it as yourself, have one added to its filters\\.from_users\\.',
            'Request id: [0-9a-f-]{36}',
            '$',
          ].join('\n'),
        ),
      );
      // --actor still wins over the login.
      const given = await nina(['run', 'for-ada', '--project', ctx.project, '--actor', 'dev-lead', '--json']);
      expect(given.code, given.stderr).toBe(0);
      expect(JSON.parse(given.stdout)).toMatchObject({ actor: 'dev-lead' });
    });

    it('without --project runs in the only project, else in the one .hub/project.yml names, and says which', async () => {
      const only = await ada(['run', 'for-ada']);
      expect(only.code, only.stderr).toBe(0);
      expect(only.stderr).toMatch(
        new RegExp(`^Project app \\(the only project of ${ctx.org}\\)\\.\\nRun [0-9a-f-]{36} dispatched as Ada `),
      );
      expect(await runOf(only.stdout.trim())).toMatchObject({ projectSlug: 'app', actor: 'Ada' });

      const web = await call(hub, 'POST', `/api/admin/v1/organizations/${ctx.org}/projects`, {
        token: hub.adminToken,
        body: { slug: 'web', name: 'Web' },
      });
      expect(web.status, web.text).toBe(201);
      const several = await ada(['run', 'for-ada']);
      expect({ code: several.code, stdout: several.stdout }).toEqual({ code: 2, stdout: '' });
      expect(several.stderr).toBe(
        [
          `hub: hub run needs a project, and ${ctx.org} has 2 projects:`,
          '  app  app',
          '  web  Web',
          'Choose one: give --project SLUG, or write "project: SLUG" in .hub/project.yml.',
          '',
        ].join('\n'),
      );

      const repo = writeTree(join(dir, 'repo'), { '.git/HEAD': 'x\n', '.hub/project.yml': 'project: app\n' });
      mkdirSync(join(repo, 'src'));
      const named = await ada(['run', 'for-ada'], join(repo, 'src'));
      expect(named.code, named.stderr).toBe(0);
      expect(named.stderr).toMatch(/^Project app \(named in \.hub\/project\.yml\)\.\n/);
    });

    it('--help tells the default: the person logged in, else the user name on this machine with an API key', async () => {
      const { code, stdout } = await runHub(['run', '--help']);
      expect(code).toBe(0);
      expect(stdout).toMatch(/Without --actor, the run is dispatched as you\. Logged in with "hub login"/);
      expect(stdout).toMatch(
        /With an API key \(HUB_API_KEY,\s+--api-key\), which is no person's, the actor is your user name on this machine/,
      );
      expect(stdout).not.toMatch(/default: your user name on this machine/);
    });
  });

  describe('hub logs', () => {
    it('shows the output of a finished run, step by step, and its status; --follow of it exits with its status', async () => {
      const runId = await dispatch('two', 'lines=3');
      const run = await eventually(runId, (r) => r.status !== 'running');
      const shown = await cli(['logs', runId, hub.url]);
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout).toBe(numbered('first', 3) + numbered('second', 3));
      expect(shown.stderr).toBe(
        [
          `==> step first on daemon dev-box (execution ${run.executions[0].executionId})`,
          '==> step first succeeded, exit code 0',
          `==> step second on daemon dev-box (execution ${run.executions[1].executionId})`,
          '==> step second succeeded, exit code 0',
          `Run ${runId} succeeded.`,
          '',
        ].join('\n'),
      );
      const followed = await cli(['logs', runId, hub.url, '--follow']);
      expect(followed).toEqual({ ...shown, code: 0 });

      const failed = await dispatch('chatty', 'lines=1 fail=yes');
      await eventually(failed, (r) => r.status !== 'running');
      expect(await cli(['logs', failed, hub.url, '--follow'])).toMatchObject({
        code: 1,
        stdout: 'talk line 1\nboom\n',
      });
    });

    it('--follow picks up a run in the middle and shows the rest as it comes', async () => {
      const runId = await dispatch('chatty', 'lines=30 pause_ms=50');
      const { code, stdout } = await cli(['logs', runId, hub.url, '--follow']);
      expect(code).toBe(0);
      expect(stdout).toBe(numbered('talk', 30));
    });

    it('of a run another organization owns is not found (exit 1)', async () => {
      const other = await setUp(hub);
      const runId = await dispatch('chatty', 'lines=1');
      const { code, stderr } = await runHub(['logs', runId, hub.url], { env: { ...env, HUB_API_KEY: other.key } });
      expect(code).toBe(1);
      expect(stderr).toMatch(/\(HTTP 404 Not Found, run_not_found\)/);
    });
  });

  describe('hub cancel', () => {
    it('cancels a silent long agent: it ends cancelled, and a hub logs --follow of it exits 3', async () => {
      const runId = await dispatch('chatty', 'lines=1 sleep_ms=120000');
      const following = start(['logs', runId, hub.url, '--follow'], { env });
      await eventually(runId, (r) => r.executions[0]?.status === 'running');
      await following.waitFor(/==> step talk on daemon dev-box/);

      const cancelled = await cli(['cancel', runId, hub.url]);
      expect(cancelled.code, cancelled.stderr).toBe(0);
      expect(cancelled.stdout).toBe(
        `Cancellation requested for run ${runId}; the daemon stops it within seconds. To see it end: hub logs ${runId} --follow ${hub.url}\n`,
      );

      expect(await exitOf(following)).toBe(3);
      expect(following.output().stdout).toBe('talk line 1\n');
      expect(following.output().stderr).toMatch(
        new RegExp(`==> step talk cancelled[^\\n]*\\nRun ${runId} was cancelled\\.\\n$`),
      );
      expect(await runOf(runId)).toMatchObject({ status: 'cancelled', executions: [{ status: 'cancelled' }] });
    }, 60_000);

    it('of a finished run says it has already ended, with its status, and exits 1', async () => {
      const runId = await dispatch('chatty', 'lines=1');
      await eventually(runId, (r) => r.status !== 'running');
      expect(await cli(['cancel', runId, hub.url])).toEqual({
        code: 1,
        stdout: '',
        stderr: `hub: Run ${runId} has already ended (succeeded); there is nothing to cancel.\n`,
      });
    });
  });

  it('Ctrl-C on hub run --follow stops following with exit 130 and how to cancel, and the run goes on', async () => {
    const following = start(
      [
        'run',
        'chatty',
        hub.url,
        '--project',
        ctx.project,
        '--actor',
        'dev-lead',
        '--input',
        'lines=1 sleep_ms=120000',
        '--follow',
      ],
      { env },
    );
    await following.waitFor(/==> step talk on daemon dev-box/);
    const runId = /^Run (\S+) dispatched/m.exec(following.output().stderr)?.[1] as string;
    await eventually(runId, (r) => r.executions[0]?.status === 'running');
    following.child.kill('SIGINT');

    expect(await exitOf(following)).toBe(130);
    expect(following.output().stderr).toMatch(
      new RegExp(
        `\\nStopped following run ${runId}; the run goes on\\. To cancel it: hub cancel ${runId} ${hub.url.replaceAll('.', '\\.')}\\n$`,
      ),
    );
    expect(await runOf(runId)).toMatchObject({ status: 'running', cancelRequestedAt: null });
    expect((await cli(['cancel', runId, hub.url])).code).toBe(0);
    await eventually(runId, (r) => r.status === 'cancelled');
  }, 60_000);

  describe('hub runs', () => {
    it('lists runs newest first as a table, filtered, a page at a time, and as JSON', async () => {
      const other = await setUp(hub);
      const listed = (args: string[]) =>
        runHub(['runs', hub.url, ...args], { env: { ...env, HUB_API_KEY: other.key } });
      expect(await listed([])).toEqual({ code: 0, stdout: 'No runs.\n', stderr: '' });

      const older = await dispatch('chatty', 'lines=1');
      const newer = await dispatch('two', 'lines=1 fail=yes');
      await eventually(older, (r) => r.status !== 'running');
      await eventually(newer, (r) => r.status !== 'running');

      const table = await cli(['runs', hub.url, '--limit', '2']);
      expect(table.code, table.stderr).toBe(0);
      const [header, first, second, rest] = table.stdout.split('\n');
      expect(header).toMatch(/^RUN +TRIGGER +PROJECT +ACTOR +SOURCE +STATUS +STARTED +TOOK$/);
      expect(first).toMatch(
        new RegExp(
          `^${newer}  two +${ctx.project} +dev-lead +manual +failed +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d  \\S+( \\S+)?$`,
        ),
      );
      expect(second).toMatch(new RegExp(`^${older}  chatty +${ctx.project} +dev-lead +manual +succeeded +`));
      expect(rest).toBe('');
      expect(table.stderr).toBe(`More runs than these: hub runs ${hub.url} --all, or --limit N (up to 200).\n`);

      const failed = await cli([
        'runs',
        hub.url,
        '--status',
        'failed',
        '--trigger',
        'two',
        '--project',
        ctx.project,
        '--json',
      ]);
      const page = JSON.parse(failed.stdout);
      expect(page.origin).toBe(hub.url);
      expect(page.runs.length).toBeGreaterThan(0);
      expect(
        page.runs.every((run: { status: string; trigger: string }) => run.status === 'failed' && run.trigger === 'two'),
      ).toBe(true);
      expect(page.runs[0]).toEqual(await runOf(newer));

      const all = JSON.parse((await cli(['runs', hub.url, '--all', '--json'])).stdout);
      const direct = await call(hub, 'GET', '/api/v1/runs?limit=200', { token: ctx.key });
      expect(all.runs.map((run: { triggerRunId: string }) => run.triggerRunId)).toEqual(
        direct.body.runs.map((run: { triggerRunId: string }) => run.triggerRunId),
      );
      expect(all.nextCursor).toBeNull();
      // Every run here was dispatched by hand: --source filters at the hub.
      const manual = JSON.parse((await cli(['runs', hub.url, '--all', '--source', 'manual', '--json'])).stdout);
      expect(manual.runs.length).toBe(all.runs.length);
      expect(manual.runs.every((run: { source: string }) => run.source === 'manual')).toBe(true);
      expect(JSON.parse((await cli(['runs', hub.url, '--source', 'schedule', '--json'])).stdout).runs).toEqual([]);

      const one = JSON.parse((await cli(['runs', hub.url, '--limit', '1', '--json'])).stdout);
      expect(one.runs.map((run: { triggerRunId: string }) => run.triggerRunId)).toEqual([newer]);
      const next = JSON.parse(
        (await cli(['runs', hub.url, '--limit', '1', '--cursor', one.nextCursor, '--json'])).stdout,
      );
      expect(next.runs.map((run: { triggerRunId: string }) => run.triggerRunId)).toEqual([older]);
    });
  });
});
