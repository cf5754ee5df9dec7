// The reference daemon against the real hub: enrolled with a token the hub issued, it runs
// dispatched manual runs with a small Node script as the agent, and the hub records the outcome.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, setUp } from '../../server/test/support/client.js';
import { hubOn } from '../../server/test/support/hub.js';
import { WebhookReceiver } from '../../server/test/support/webhook-receiver.js';
import { hub as runHub, start, type Running } from './support/cli.js';
import { isRunning } from './support/processes.js';

// The agent writes what it saw to a temporary file and renames it, so the test never reads it half-written.
const AGENT = `import { renameSync, writeFileSync } from 'node:fs';
let prompt = '';
for await (const chunk of process.stdin) prompt += chunk;
const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('HUB_')));
const seen = process.env.OUT_DIR + '/' + process.env.HUB_EXECUTION_ID + '.json';
writeFileSync(seen + '.tmp', JSON.stringify({ prompt, env, argv: process.argv.slice(2), cwd: process.cwd(), pid: process.pid }));
renameSync(seen + '.tmp', seen);
console.log('agent says hello');
await new Promise((resolve) => setTimeout(resolve, Number(process.env.HUB_INPUT_SLEEP_MS ?? 0)));
process.exit(Number(process.env.HUB_INPUT_EXIT ?? 0));
`;

const configuration = (cwd: string) => `
environments:
  - { name: laptop, kind: daemon, daemon: dev-box, cwd: ${JSON.stringify(cwd)} }
triggers:
  - name: fix
    on:
      manual.run:
        inputs:
          branch: { description: Branch, required: false, default: main }
          exit: { description: Exit code, required: false, default: "0" }
          sleep_ms: { description: Sleep, required: false, default: "0" }
    max_runtime: 1h
    filters: { from_users: [dev-lead] }
    steps:
      - id: first
        environment: laptop
        agent: { provider: claude, mode: edit }
        prompt: [ { text: "Fix {{ inputs.branch }}. {{ prompt }}" } ]
      - id: second
        environment: laptop
        agent: { provider: codex }
        prompt: [ { text: "Check {{ inputs.branch }}." } ]
  - name: quiet
    on: { manual.run: { inputs: { sleep_ms: { description: Sleep, required: false, default: "60000" } } } }
    max_runtime: 1h
    filters: { from_users: [dev-lead] }
    steps:
      - { id: wait, environment: laptop, idle_timeout: 1s, agent: { provider: codex }, prompt: [ { text: "Wait." } ] }
`;

/** A B trigger of the organization, naming the same daemon. */
const organizationTrigger = (cwd: string) => `
name: triage
on:
  manual.run:
    inputs:
      label: { description: Label, required: false, default: bug }
filters:
  from_users: [dev-lead]
run:
  target: { daemon: dev-box, cwd: ${JSON.stringify(cwd)} }
  agent:
    provider: codex
    prompt: "Triage {{ inputs.label }}: {{ prompt }}"
    max_runtime: 10m
`;

describe('the reference daemon with a real hub', () => {
  let hub: Awaited<ReturnType<typeof hubOn>>;
  let ctx: Awaited<ReturnType<typeof setUp>>;
  let dir: string;
  let out: string;
  let daemon: Running | undefined;
  let env: Record<string, string>;
  let config: string;
  let deliveries = 0;

  const token = async () => {
    const answer = await call(hub, 'POST', '/api/v1/daemons/enrollment-tokens', { token: ctx.key });
    if (answer.status !== 201) throw new Error(`token: ${answer.status} ${answer.text}`);
    return answer.body.token as string;
  };
  /** A dispatch through shape B (answers the run), or shape A (answers the first execution). */
  const post = async (path: string, trigger: string, input: string) => {
    const answer = await call(hub, 'POST', path, {
      token: ctx.key,
      body: {
        projectSlug: ctx.project,
        trigger,
        actor: 'dev-lead',
        deliveryKey: `e2e-${Date.now()}-${++deliveries}`,
        input,
      },
    });
    if (answer.status !== 200) throw new Error(`dispatch: ${answer.status} ${answer.text}`);
    return answer.body;
  };
  const dispatch = async (trigger: string, input: string) =>
    (await post('/api/v1/manual-runs', trigger, input)).triggerRunId as string;
  const dispatchA = async (trigger: string, input: string) =>
    (await post('/api/manual-runs', trigger, input)) as { executionId: string; status: string; agentId: string };
  const runOf = async (triggerRunId: string) =>
    (await call(hub, 'GET', `/api/v1/runs/${triggerRunId}`, { token: ctx.key })).body;
  const eventually = async (
    triggerRunId: string,
    done: (run: { status: string; executions: { executionId: string; status: string }[] }) => boolean,
    ms = 20_000,
  ) => {
    const deadline = Date.now() + ms;
    for (;;) {
      const run = await runOf(triggerRunId);
      if (done(run)) return run;
      if (Date.now() > deadline)
        throw new Error(`run ${triggerRunId} is ${JSON.stringify(run)}; daemon stderr:\n${daemon?.output().stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const startDaemon = async () => {
    daemon = start(['daemon', 'run', hub.url, '--config', config], { env });
    await daemon.waitFor(/Connected; waiting for assignments\./);
    return daemon;
  };
  const seen = (executionId: string) => JSON.parse(readFileSync(join(out, `${executionId}.json`), 'utf8'));
  /** What the agent of an execution saw, once it has written it down. */
  const seenOnceWritten = async (executionId: string) => {
    const deadline = Date.now() + 20_000;
    while (!existsSync(join(out, `${executionId}.json`)) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    return seen(executionId);
  };

  beforeAll(async () => {
    // Offline after 3 s without a sign of life, so that a killed daemon's execution is lost soon.
    hub = await hubOn('embedded', {
      HUB_DAEMON_OFFLINE_AFTER_MS: '3000',
      HUB_SWEEP_EVERY_MS: '200',
      HUB_WEBHOOK_ALLOW_PRIVATE: 'true',
    });
    ctx = await setUp(hub, {
      scopes: [
        'projects:read',
        'configuration:validate',
        'configuration:install',
        'daemons:enroll',
        'runs:dispatch',
        'runs:read',
        'webhooks:manage',
      ],
    });
    dir = mkdtempSync(join(tmpdir(), 'hub-e2e-'));
    out = join(dir, 'out');
    const work = join(dir, 'work');
    mkdirSync(out);
    mkdirSync(work);
    writeFileSync(join(dir, 'agent.mjs'), AGENT);
    config = join(dir, 'daemon.yml');
    const command = (...args: string[]) => JSON.stringify([process.execPath, join(dir, 'agent.mjs'), ...args]);
    writeFileSync(
      config,
      `providers:\n  claude:\n    command: ${command('--mode={mode}')}\n    modes: [edit]\n    env: { OUT_DIR: ${JSON.stringify(out)} }\n  codex:\n    command: ${command()}\n    env: { OUT_DIR: ${JSON.stringify(out)} }\n`,
    );
    env = { HUB_CONFIG_DIR: join(dir, 'config') };
    const enrolled = await runHub(['daemon', 'enroll', hub.url, '--name', 'dev-box', '--config', config], {
      input: `${await token()}\n`,
      env,
    });
    expect(enrolled.code, enrolled.stderr).toBe(0);
    const installed = await call(hub, 'POST', '/api/v1/configurations/install', {
      token: ctx.key,
      body: { projectSlug: ctx.project, yaml: configuration(work) },
    });
    expect(installed.status, installed.text).toBe(201);
    const trigger = await call(hub, 'POST', '/api/v1/triggers/install', {
      token: ctx.key,
      body: { yaml: organizationTrigger(work) },
    });
    expect(trigger.status, trigger.text).toBe(201);
    await startDaemon();
  }, 120_000);

  afterAll(async () => {
    if (daemon !== undefined && daemon.child.exitCode === null) {
      daemon.child.kill('SIGKILL');
      await daemon.exited;
    }
    await hub?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('runs both steps of a dispatched run, with the rendered prompt and the inputs, and the run succeeds', async () => {
    const triggerRunId = await dispatch('fix', 'branch=feature please hurry');
    const run = await eventually(triggerRunId, (r) => r.status !== 'running');

    expect(run).toMatchObject({
      status: 'succeeded',
      executions: [
        { stepId: 'first', status: 'succeeded', exitCode: 0 },
        { stepId: 'second', status: 'succeeded', exitCode: 0 },
      ],
    });
    const [first, second] = run.executions.map((execution: { executionId: string }) => seen(execution.executionId));
    expect(first.prompt).toBe('Fix feature. please hurry');
    expect(first.argv).toEqual(['--mode=edit']);
    expect(first.cwd).toBe(join(dir, 'work'));
    expect(first.env).toMatchObject({
      HUB_INPUT_BRANCH: 'feature',
      HUB_TRIGGER_RUN_ID: triggerRunId,
      HUB_STEP_ID: 'first',
      HUB_ACTOR: 'dev-lead',
      HUB_AGENT_PROVIDER: 'claude',
      HUB_AGENT_MODE: 'edit',
    });
    expect(JSON.parse(first.env.HUB_INPUTS)).toEqual({ branch: 'feature', exit: '0', sleep_ms: '0' });
    expect(second).toMatchObject({
      prompt: 'Check feature.',
      argv: [],
      env: { HUB_STEP_ID: 'second', HUB_AGENT_PROVIDER: 'codex' },
    });
    expect(daemon?.output().stderr).toContain(`[${run.executions[0].executionId}] agent says hello\n`);
  });

  it('sends run.started and run.completed for the run, verified with standardwebhooks, as GET shows the run', async () => {
    const receiver = await WebhookReceiver.start();
    try {
      const made = await call(hub, 'POST', '/api/v1/webhook-endpoints', {
        token: ctx.key,
        body: { url: receiver.url, events: ['run.started', 'run.completed'] },
      });
      expect(made.status, made.text).toBe(201);
      receiver.secret(made.body.secret as string);
      const triggerRunId = await dispatch('fix', 'branch=hooks');
      await eventually(triggerRunId, (r) => r.status !== 'running');
      const deadline = Date.now() + 20_000;
      while (receiver.of('run.completed').length === 0 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 100));
      expect(receiver.refused).toEqual([]);
      const [completed] = receiver.of('run.completed');
      expect(completed?.event.data).toEqual(await runOf(triggerRunId));
      expect(completed?.event.data).toMatchObject({
        status: 'succeeded',
        executions: [{ stepId: 'first' }, { stepId: 'second' }],
      });
      const [started] = receiver.of('run.started');
      expect(started?.event.data).toMatchObject({ triggerRunId, status: 'running', finishedAt: null });
      expect(receiver.received.map((each) => each.event.type).sort()).toEqual(['run.completed', 'run.started']);
      const removed = await call(hub, 'DELETE', `/api/v1/webhook-endpoints/${made.body.id as string}`, {
        token: ctx.key,
      });
      expect(removed.status).toBe(204);
    } finally {
      await receiver.close();
    }
  });

  it("runs the organization's trigger (B) dispatched through shape A, with its own prompt and inputs", async () => {
    const answer = await dispatchA('triage', 'label=flaky the login test');
    expect(answer).toMatchObject({ status: 'spawning', agentId: 'codex' });
    expect(await seenOnceWritten(answer.executionId)).toMatchObject({
      prompt: 'Triage flaky: the login test',
      env: { HUB_INPUT_LABEL: 'flaky', HUB_STEP_ID: 'run' },
    });
  });

  it('reports a failing agent with its exit code, which ends the run, and what it printed', async () => {
    const triggerRunId = await dispatch('fix', 'exit=4');
    const run = await eventually(triggerRunId, (r) => r.status !== 'running');
    expect(run).toMatchObject({ status: 'failed', executions: [{ stepId: 'first', status: 'failed', exitCode: 4 }] });
    const output = await call(
      hub,
      'GET',
      `/api/v1/runs/${triggerRunId}/executions/${run.executions[0].executionId}/output`,
      { token: ctx.key },
    );
    expect(output.text).toBe('agent says hello\n');
  });

  it('stops a silent agent at its idle timeout and reports timed_out', async () => {
    const triggerRunId = await dispatch('quiet', '');
    const run = await eventually(triggerRunId, (r) => r.status !== 'running');
    expect(run).toMatchObject({
      status: 'timed_out',
      executions: [{ status: 'timed_out', message: 'Stopped: no output for 1 s (the idle timeout).' }],
    });
    expect(isRunning(seen(run.executions[0].executionId).pid)).toBe(false);
  });

  it('on SIGTERM cancels the running execution at the hub, says it is offline, and exits 0', async () => {
    const triggerRunId = await dispatch('fix', 'sleep_ms=60000');
    const running = await eventually(triggerRunId, (r) => r.executions[0]?.status === 'running');
    const { executionId } = running.executions[0];
    await daemon?.waitFor(new RegExp(`\\[${executionId}\\] agent says hello`));
    const { pid } = seen(executionId);
    daemon?.child.kill('SIGTERM');
    expect(await daemon?.exited).toBe(0);
    const run = await runOf(triggerRunId);
    expect(run.executions[0]).toMatchObject({ status: 'cancelled', message: 'Cancelled: received SIGTERM.' });
    expect(isRunning(pid)).toBe(false);
    const refused = await call(hub, 'POST', '/api/v1/manual-runs', {
      token: ctx.key,
      body: {
        projectSlug: ctx.project,
        trigger: 'fix',
        actor: 'dev-lead',
        deliveryKey: `e2e-${Date.now()}-${++deliveries}`,
        input: '',
      },
    });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('daemon_offline');
  });

  it('leaves an execution lost when the daemon is killed mid-run', async () => {
    const running = await startDaemon();
    const triggerRunId = await dispatch('fix', 'sleep_ms=60000');
    const started = await eventually(triggerRunId, (r) => r.executions[0]?.status === 'running');
    const { pid } = (await seenOnceWritten(started.executions[0]?.executionId as string)) as { pid: number };
    running.child.kill('SIGKILL');
    await running.exited;
    // The agent's process group outlives a SIGKILLed daemon; stop it so the test leaves nothing behind.
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
    const run = await eventually(triggerRunId, (r) => r.status !== 'running');
    expect(run).toMatchObject({ status: 'failed', executions: [expect.objectContaining({ status: 'lost' })] });
  });

  it('exits 1 once an enrollment of its name with --replace retires it', async () => {
    const first = await startDaemon();
    const replacing = await runHub(
      ['daemon', 'enroll', hub.url, '--name', 'dev-box', '--replace', '--config', config],
      {
        input: `${await token()}\n`,
        env: { HUB_CONFIG_DIR: join(dir, 'other-config') },
      },
    );
    expect(replacing.code, replacing.stderr).toBe(0);
    expect(await first.exited).toBe(1);
    expect(first.output().stderr).toMatch(
      /hub: The hub refused this daemon's identity \(401 unauthorized: .*\)\. .*Enroll again: hub daemon enroll .* --name dev-box\n$/,
    );
  }, 40_000);
});
