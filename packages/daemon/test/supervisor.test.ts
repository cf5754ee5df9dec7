// runExecution with real agent processes: small Node scripts that stand in for claude or codex.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Assignment, StatusReport } from '@hub/schemas';
import { runExecution, type ProviderConfig } from '../src/index.js';
import { isRunning } from '../../cli/test/support/processes.js';

let dir: string;

/** Writes an agent script; it finds its output file in $OUT. */
function agent(name: string, source: string): string {
  const path = join(dir, `${name}.mjs`);
  writeFileSync(
    path,
    `import { spawn } from 'node:child_process';\nimport { writeFileSync } from 'node:fs';\n${source}`,
  );
  return path;
}

/** A grandchild that ignores SIGTERM, so that only SIGKILL ends it; its pid and the agent's go to $OUT. */
const SPAWN_STUBBORN_GRANDCHILD = `
const grandchild = spawn(process.execPath, ['-e', "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"], { stdio: 'ignore' });
writeFileSync(process.env.OUT, JSON.stringify({ agent: process.pid, grandchild: grandchild.pid }));
`;

function assignment(overrides: Partial<Assignment> = {}): Assignment {
  return {
    executionId: 'exec-1',
    triggerRunId: 'run-1',
    stepId: 'review',
    cwd: dir,
    agent: { provider: 'node', mode: 'edit' },
    prompt: 'Review the change.\nSecond line, ünïcode.',
    inputs: { 'target-branch': 'main', scope: 'all files' },
    actor: 'alice',
    maxRuntimeMs: 600_000,
    idleTimeoutMs: null,
    ...overrides,
  };
}

function provider(script: string, out: string, extra: Partial<ProviderConfig> = {}): ProviderConfig {
  return { command: [process.execPath, script], env: { OUT: out }, ...extra };
}

/** Runs and records every status, and the agent's forwarded output. */
async function run(a: Assignment, p: ProviderConfig, options: { signal?: AbortSignal; killGraceMs?: number } = {}) {
  const statuses: StatusReport[] = [];
  const output = new PassThrough();
  let forwarded = '';
  output.on('data', (chunk: Buffer) => (forwarded += chunk.toString()));
  const started = Date.now();
  const final = await runExecution(a, p, { ...options, output, onStatus: (report) => statuses.push(report) });
  return { final, statuses, forwarded, elapsed: Date.now() - started };
}

const pidsIn = (out: string) => JSON.parse(readFileSync(out, 'utf8')) as { agent: number; grandchild: number };

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'hub-supervisor-'));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('runExecution', () => {
  it('gives the agent its prompt on standard input, its inputs in the environment, and reports succeeded', async () => {
    const out = join(dir, 'success.json');
    const script = agent(
      'success',
      `let prompt = '';
for await (const chunk of process.stdin) prompt += chunk;
const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('HUB_') || name === 'EXTRA'));
writeFileSync(process.env.OUT, JSON.stringify({ prompt, env, argv: process.argv.slice(2), cwd: process.cwd() }));
console.log('hello');
console.error('careful');
process.stdout.write('no newline at the end');`,
    );
    const p = provider(script, out, {
      command: [process.execPath, script, '--mode={mode}', '--model={model}', 'plain'],
      env: { OUT: out, EXTRA: 'x', HUB_EXECUTION_ID: 'spoofed' },
    });
    const { final, statuses, forwarded } = await run(assignment(), p);

    expect(final).toEqual({ status: 'succeeded', exitCode: 0 });
    expect(statuses).toEqual([{ status: 'running' }, { status: 'succeeded', exitCode: 0 }]);
    const seen = JSON.parse(readFileSync(out, 'utf8'));
    expect(seen.prompt).toBe('Review the change.\nSecond line, ünïcode.');
    expect(seen.argv).toEqual(['--mode=edit', 'plain']);
    expect(seen.cwd).toBe(dir);
    expect(seen.env).toEqual({
      EXTRA: 'x',
      HUB_INPUT_TARGET_BRANCH: 'main',
      HUB_INPUT_SCOPE: 'all files',
      HUB_INPUTS: JSON.stringify({ 'target-branch': 'main', scope: 'all files' }),
      HUB_EXECUTION_ID: 'exec-1',
      HUB_TRIGGER_RUN_ID: 'run-1',
      HUB_STEP_ID: 'review',
      HUB_ACTOR: 'alice',
      HUB_AGENT_PROVIDER: 'node',
      HUB_AGENT_MODE: 'edit',
    });
    expect(forwarded.split('\n').sort()).toEqual([
      '',
      '[exec-1] careful',
      '[exec-1] hello',
      '[exec-1] no newline at the end',
    ]);
  });

  it('reports failed with the exit code', async () => {
    const script = agent('fail', 'process.exit(3);');
    const { final, statuses } = await run(assignment(), provider(script, join(dir, 'unused')));
    expect(final).toMatchObject({ status: 'failed', exitCode: 3 });
    expect(statuses.map((report) => report.status)).toEqual(['running', 'failed']);
  });

  it('reports failed with a message when the command does not exist, without running', async () => {
    const { final, statuses } = await run(assignment(), { command: ['hub-test-no-such-agent'], env: {} });
    expect(final.status).toBe('failed');
    expect(final.message).toMatch(/hub-test-no-such-agent: command not found/);
    expect(statuses).toEqual([final]);
  });

  it('reports failed with a message when an input cannot be passed to a process', async () => {
    const script = agent('never-started', 'process.exit(0);');
    const { final, statuses } = await run(
      assignment({ inputs: { bad: 'a\u0000b' } }),
      provider(script, join(dir, 'unused')),
    );
    expect(final.status).toBe('failed');
    expect(final.message).toMatch(/^Cannot start .*null bytes/);
    expect(statuses).toEqual([final]);
  });

  it('reports failed with a message when the working directory does not exist', async () => {
    const script = agent('never', 'process.exit(0);');
    const { final } = await run(assignment({ cwd: join(dir, 'missing') }), provider(script, join(dir, 'unused')));
    expect(final).toEqual({
      status: 'failed',
      message: `The working directory ${join(dir, 'missing')} does not exist.`,
    });
  });

  it('stops a silent agent and its children at the idle timeout, with SIGKILL for those that ignore SIGTERM', async () => {
    const out = join(dir, 'idle.json');
    const script = agent('idle', `${SPAWN_STUBBORN_GRANDCHILD}\nsetInterval(() => {}, 1000);`);
    // The idle timeout leaves the grandchild, even on a loaded machine, time to start and to
    // ignore SIGTERM before it comes.
    const { final, elapsed } = await run(
      assignment({ idleTimeoutMs: 3_000, maxRuntimeMs: 60_000 }),
      provider(script, out),
      { killGraceMs: 300 },
    );

    expect(final.status).toBe('timed_out');
    expect(final.message).toMatch(/no output for 3 s \(the idle timeout\)/);
    expect(elapsed).toBeGreaterThanOrEqual(3_000 + 300);
    const pids = pidsIn(out);
    expect(isRunning(pids.agent)).toBe(false);
    expect(isRunning(pids.grandchild)).toBe(false);
  });

  it('stops an agent that keeps printing at the maximum runtime', async () => {
    const script = agent('chatty', "setInterval(() => console.log('still working'), 50);");
    // The idle timeout is far longer than a loaded machine takes to start node and print.
    const { final, elapsed, forwarded } = await run(
      assignment({ idleTimeoutMs: 20_000, maxRuntimeMs: 3_000 }),
      provider(script, join(dir, 'unused')),
    );

    expect(final.status).toBe('timed_out');
    expect(final.message).toMatch(/ran longer than 3 s \(the maximum runtime\)/);
    expect(elapsed).toBeGreaterThanOrEqual(3_000);
    expect(forwarded).toContain('[exec-1] still working\n');
  });

  it('cancels: the process tree is stopped and the abort reason is the message', async () => {
    const out = join(dir, 'cancel.json');
    const script = agent('cancel', `${SPAWN_STUBBORN_GRANDCHILD}\nsetInterval(() => console.log('working'), 50);`);
    const controller = new AbortController();
    const execution = run(assignment(), provider(script, out), { signal: controller.signal, killGraceMs: 300 });
    await waitForFile(out);
    controller.abort('Cancelled: the daemon is stopping.');
    const { final, statuses } = await execution;

    expect(final).toEqual({ status: 'cancelled', message: 'Cancelled: the daemon is stopping.' });
    expect(statuses.map((report) => report.status)).toEqual(['running', 'cancelled']);
    const pids = pidsIn(out);
    expect(isRunning(pids.agent)).toBe(false);
    expect(isRunning(pids.grandchild)).toBe(false);
  });

  it('stops what a successful agent left running in its process group', async () => {
    const out = join(dir, 'leftover.json');
    const script = agent('leftover', `${SPAWN_STUBBORN_GRANDCHILD}\ngrandchild.unref();`);
    const { final } = await run(assignment(), provider(script, out), { killGraceMs: 300 });

    expect(final.status).toBe('succeeded');
    expect(isRunning(pidsIn(out).grandchild)).toBe(false);
  });
});

async function waitForFile(path: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    try {
      if (readFileSync(path, 'utf8') !== '') return;
    } catch {
      // not yet written
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`${path} was never written`);
}
