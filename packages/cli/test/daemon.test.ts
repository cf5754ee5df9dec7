// `hub daemon run` as a real process against a real HTTP server that checks every signature the
// way the hub does, with a small Node script as the agent.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hub, start, type Running } from './support/cli.js';
import { FakeHub, type Recorded } from './support/fake-hub.js';
import { isRunning } from './support/processes.js';

const TOKEN = 'hub_et_0123456789abcdefghijklmnopqrstuvwxyzAB';
const AGENT = `import { appendFileSync } from 'node:fs';
let prompt = '';
for await (const chunk of process.stdin) prompt += chunk;
appendFileSync(process.env.RUNS, process.env.HUB_EXECUTION_ID + ' ' + process.pid + ' ' + Date.now() + '\\n');
console.log('prompt: ' + prompt);
await new Promise((resolve) => setTimeout(resolve, Number(process.env.HUB_INPUT_SLEEP_MS ?? 0)));
process.exit(Number(process.env.HUB_INPUT_EXIT ?? 0));
`;

let dir: string;
let env: Record<string, string>;
let config: string;
let runs: string;
let fake: FakeHub;
let daemon: Running | undefined;

function writeConfig(concurrency: number): void {
  writeFileSync(join(dir, 'agent.mjs'), AGENT);
  writeFileSync(
    config,
    `concurrency: ${concurrency}\nproviders:\n  node:\n    command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(join(dir, 'agent.mjs'))}]\n    modes: [edit]\n    env: { RUNS: ${JSON.stringify(runs)} }\n`,
  );
}

function assignment(executionId: string, inputs: Record<string, string> = {}, overrides: Record<string, unknown> = {}) {
  return {
    executionId,
    triggerRunId: `run-${executionId}`,
    stepId: 'step',
    cwd: dir,
    agent: { provider: 'node', mode: 'edit' },
    prompt: `Do ${executionId}`,
    inputs,
    actor: 'alice',
    maxRuntimeMs: 600_000,
    idleTimeoutMs: null,
    ...overrides,
  };
}

async function until(what: string, condition: () => boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}; daemon stderr:\n${daemon?.output().stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const statusesOf = (executionId: string) => fake.statuses.filter((status) => status.executionId === executionId);
const finished = (executionId: string) => statusesOf(executionId).some((status) => status.status !== 'running');
const runLines = () => {
  try {
    return readFileSync(runs, 'utf8').trim().split('\n').filter(Boolean);
  } catch {
    return [];
  }
};
/** Index in the hub's request log of a status report: reports of one execution arrive in order, those of several may cross. */
const reportIndex = (executionId: string, status: string) =>
  fake.requests.findIndex(
    (request) =>
      request.path.includes(`/executions/${executionId}/status`) &&
      (request.body as { status: string }).status === status,
  );

async function startDaemon(concurrency = 1): Promise<Running> {
  writeConfig(concurrency);
  daemon = start(['daemon', 'run', fake.url, '--config', config], { env });
  return daemon;
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hub-daemon-'));
  env = { HUB_CONFIG_DIR: join(dir, 'config') };
  config = join(dir, 'daemon.yml');
  runs = join(dir, 'runs.txt');
  fake = new FakeHub();
  await fake.start();
  writeConfig(1);
  const enrolled = await hub(['daemon', 'enroll', fake.url, '--name', 'dev-box', '--config', config], {
    input: `${TOKEN}\n`,
    env,
  });
  if (enrolled.code !== 0) throw new Error(`enroll failed: ${enrolled.stderr}`);
  fake.requests.length = 0;
});

afterEach(async () => {
  if (daemon !== undefined && daemon.child.exitCode === null) {
    daemon.child.kill('SIGKILL');
    await daemon.exited;
  }
  daemon = undefined;
  await fake.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('hub daemon run', () => {
  it('heartbeats and long-polls with signed requests, runs an assignment once even when it is offered again, and reports it', async () => {
    const running = await startDaemon();
    await until('a heartbeat and a poll', () => fake.heartbeats().length > 0 && fake.polls().length > 0);
    expect(fake.heartbeats()[0]?.body).toEqual({ runtimes: [{ provider: 'node', modes: ['edit'] }] });
    expect(fake.polls()[0]?.path).toBe('/api/v1/daemon/assignments/next?wait=25&capacity=1');

    fake.assign(assignment('a1', { SLEEP_MS: '800' }));
    await until('a1 running', () => statusesOf('a1').length > 0);
    fake.assign(assignment('a1', { SLEEP_MS: '800' }));
    await until('a1 finished', () => finished('a1'));

    expect(statusesOf('a1')).toEqual([
      { executionId: 'a1', status: 'running' },
      { executionId: 'a1', status: 'succeeded', exitCode: 0 },
    ]);
    expect(runLines().map((line) => line.split(' ')[0])).toEqual(['a1']);
    await running.waitFor(/\[a1\] prompt: Do a1\n/);
    expect(fake.output.get('a1')).toEqual([{ seq: 0, stream: 'stdout', text: 'prompt: Do a1\n' }]);
    await running.waitFor(/Execution a1 was offered again; it already ran or runs here, so the offer is ignored\./);
    expect(fake.refusals).toEqual([]);

    running.child.kill('SIGTERM');
    expect(await running.exited).toBe(0);
  });

  it('backs off when long polls come back empty at once, instead of spinning', async () => {
    fake.maxWaitMs = 0;
    await startDaemon();
    await until('four polls', () => fake.polls().length >= 4);
    // After each empty answer the daemon waits at least half the backoff's step (0.5 s, 1 s, 2 s),
    // however loaded the machine (which only makes the waits longer); a daemon that spun would ask
    // again within milliseconds. A little under those halves, for the timers' millisecond rounding.
    const at = fake.polls().map((poll) => poll.at);
    const gaps = [at[1]! - at[0]!, at[2]! - at[1]!, at[3]! - at[2]!];
    expect(gaps[0]).toBeGreaterThanOrEqual(200);
    expect(gaps[1]).toBeGreaterThanOrEqual(450);
    expect(gaps[2]).toBeGreaterThanOrEqual(950);
  });

  it('with concurrency 1, asks for the next assignment only once the running one is done, and meanwhile polls without capacity', async () => {
    await startDaemon(1);
    fake.assign(assignment('a1', { SLEEP_MS: '600' }));
    fake.assign(assignment('a2'));
    await until('both finished', () => finished('a1') && finished('a2'));

    // a1's agent ran from its start to at least 600 ms later: the daemon asked for nothing meanwhile.
    const [a1, a2] = runLines().map((line) => Number(line.split(' ')[2]));
    const delivery = fake.polls().find((poll) => poll.delivered === 'a1')?.at as number;
    const meanwhile = fake.polls().filter((poll) => poll.at > delivery && poll.at < (a1 as number) + 600);
    expect(meanwhile.filter((poll) => !poll.path.endsWith('&capacity=0'))).toEqual([]);
    expect(fake.polls().find((poll) => poll.at > delivery)?.path).toBe(
      '/api/v1/daemon/assignments/next?wait=25&capacity=0',
    );
    expect(a2).toBeGreaterThanOrEqual((a1 as number) + 600);
  });

  it('with concurrency 2, runs two at once', async () => {
    await startDaemon(2);
    fake.assign(assignment('a1', { SLEEP_MS: '1500' }));
    fake.assign(assignment('a2', { SLEEP_MS: '1500' }));
    await until('both finished', () => finished('a1') && finished('a2'));
    expect(reportIndex('a2', 'running')).toBeLessThan(reportIndex('a1', 'succeeded'));
    expect(reportIndex('a1', 'running')).toBeLessThan(reportIndex('a2', 'succeeded'));
  });

  it('reports failed for an unknown provider, a missing directory, a failing agent and an unreadable assignment, and goes on after a 409', async () => {
    await startDaemon();
    fake.statusAnswer = (executionId) =>
      executionId === 'lost'
        ? {
            status: 409,
            body: { title: 'Conflict', status: 409, detail: 'The execution is lost.', code: 'execution_finished' },
          }
        : { status: 200, body: {} };
    fake.assign(assignment('unknown', {}, { agent: { provider: 'claude' } }));
    fake.assign(assignment('nowhere', {}, { cwd: join(dir, 'missing') }));
    fake.assign(assignment('exit3', { EXIT: '3' }));
    fake.assign(assignment('lost'));
    fake.assign({ ...assignment('garbled'), cwd: 42 });
    fake.assign(assignment('unbounded', {}, { maxRuntimeMs: null }));
    fake.assign(assignment('after'));
    await until('all settled', () => ['unknown', 'nowhere', 'exit3', 'garbled', 'unbounded', 'after'].every(finished));

    expect(statusesOf('unknown')).toEqual([
      {
        executionId: 'unknown',
        status: 'failed',
        message: `This daemon has no command for the agent provider "claude": its config (${config}) has node.`,
      },
    ]);
    expect(statusesOf('nowhere')).toEqual([
      {
        executionId: 'nowhere',
        status: 'failed',
        message: `The working directory ${join(dir, 'missing')} does not exist.`,
      },
    ]);
    expect(statusesOf('exit3')).toEqual([
      { executionId: 'exit3', status: 'running' },
      { executionId: 'exit3', status: 'failed', exitCode: 3, message: `${process.execPath} exited with code 3.` },
    ]);
    expect(statusesOf('garbled')).toEqual([
      {
        executionId: 'garbled',
        status: 'failed',
        message: 'The daemon could not read the assignment: cwd is not a string.',
      },
    ]);
    expect(statusesOf('unbounded')).toEqual([
      {
        executionId: 'unbounded',
        status: 'failed',
        message:
          'The daemon could not read the assignment: maxRuntimeMs is not a positive whole number of milliseconds.',
      },
    ]);
    expect(statusesOf('after').map((status) => status.status)).toEqual(['running', 'succeeded']);
    await daemon?.waitFor(
      /Execution lost: the hub already considers it finished \(409 execution_finished: The execution is lost\.\)/,
    );
  });

  it('on SIGTERM stops the running agent, reports it cancelled, tells the hub it is offline and exits 0', async () => {
    const running = await startDaemon();
    fake.assign(assignment('long', { SLEEP_MS: '60000' }));
    await until('the agent started', () => statusesOf('long').length > 0 && runLines().length > 0);
    const pid = Number(runLines()[0]?.split(' ')[1]);
    expect(isRunning(pid)).toBe(true);

    running.child.kill('SIGTERM');
    expect(await running.exited).toBe(0);
    expect(statusesOf('long')).toEqual([
      { executionId: 'long', status: 'running' },
      { executionId: 'long', status: 'cancelled', message: 'Cancelled: received SIGTERM.' },
    ]);
    expect(isRunning(pid)).toBe(false);
    // The daemon's own lines, in their order; the agent's output ("[long] …") races with the
    // signal and may come before or after "Stopping", so it is left out.
    const logged = running
      .output()
      .stderr.split('\n')
      .filter((line) => !line.startsWith('[long] '))
      .join('\n');
    expect(logged).toMatch(
      /Stopping: received SIGTERM\.\n[^\n]*Execution long: cancelled: Cancelled: received SIGTERM\.\n[^\n]*Told the hub that this daemon is offline\.\n[^\n]*Stopped\.\n$/,
    );
    const offline = fake.requests.filter((request) => request.path === '/api/v1/daemon/offline');
    expect(offline).toHaveLength(1);
    expect(fake.requests.indexOf(offline[0] as Recorded)).toBeGreaterThan(reportIndex('long', 'cancelled'));
  });

  it('ends with exit 1 and says what to do when the hub refuses its identity', async () => {
    fake.retired = true;
    const running = await startDaemon();
    expect(await running.exited).toBe(1);
    expect(running.output().stderr).toMatch(
      new RegExp(
        `hub: The hub refused this daemon's identity \\(401 unauthorized: retired daemon\\)\\. .*--replace.*Enroll again: hub daemon enroll ${fake.url} --name dev-box\\n$`,
      ),
    );
  });

  it('rides out a hub outage, logging it once, and delivers the final status when the hub is back', async () => {
    const running = await startDaemon();
    fake.assign(assignment('a1', { SLEEP_MS: '1000' }));
    await until('a1 running', () => statusesOf('a1').length > 0);
    await fake.stop();
    await until('a1 done while the hub is down', () => /Execution a1: succeeded/.test(running.output().stderr));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await fake.start();
    await until('a1 reported', () => finished('a1'), 40_000);

    expect(statusesOf('a1').map((status) => status.status)).toEqual(['running', 'succeeded']);
    await running.waitFor(/The hub answers again after \d+ s\./);
    const stderr = running.output().stderr;
    expect(stderr.match(/The hub is unavailable/g)).toHaveLength(1);
    expect(stderr.match(/The hub answers again/g)).toHaveLength(1);
    fake.assign(assignment('a2'));
    await until('a2 after the outage', () => finished('a2'));
  }, 60_000);

  it('without an identity for the hub, exits 2 and lists the hubs it has one for', async () => {
    const { code, stderr } = await hub(['daemon', 'run', 'https://other.example', '--config', config], { env });
    expect(code).toBe(2);
    expect(stderr).toContain(
      `This machine has no daemon enrolled with https://other.example. Enrolled with:\n  ${fake.url}  (dev-box)`,
    );
  });
});
