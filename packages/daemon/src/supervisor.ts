// Runs one assignment as a process and supervises it: its limits, its output, its cancellation.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { Assignment, StatusReport } from '@hub/schemas';
import type { ProviderConfig } from './config.js';
import { commandLine, executionEnvironment, workingDirectory } from './environment.js';
import { stopGroup } from './process-group.js';

/** What a daemon reports of an execution (the body of POST /api/v1/daemon/executions/{executionId}/status). */
export type ExecutionStatus = StatusReport['status'];

export interface ExecutionOptions {
  /** Called with `running` as soon as the process has started, then with the final status. */
  onStatus?: (report: StatusReport) => void;
  /** Aborting cancels: the process tree is stopped and the status is `cancelled`, with the abort reason (a string) as its message. */
  signal?: AbortSignal;
  /** The daemon's environment, which the agent inherits; `process.env` by default. */
  env?: NodeJS.ProcessEnv;
  /** Where the agent's output goes, each line prefixed with `[executionId]`; standard error by default. */
  output?: Writable;
  /** Also called with the agent's output as it comes, for the hub. */
  onOutput?: (stream: 'stdout' | 'stderr', data: Buffer) => void;
  /** Between SIGTERM and SIGKILL when stopping the process tree; 5 s by default. */
  killGraceMs?: number;
}

/**
 * Runs `assignment` with `provider`'s command in the assignment's `cwd`: the prompt on standard
 * input (then closed), the inputs in the environment. Resolves with the final status once the
 * process and everything it started are gone; never rejects.
 */
export async function runExecution(
  assignment: Assignment,
  provider: ProviderConfig,
  options: ExecutionOptions = {},
): Promise<StatusReport> {
  const final = await supervise(assignment, provider, options);
  options.onStatus?.(final);
  return final;
}

async function supervise(
  assignment: Assignment,
  provider: ProviderConfig,
  options: ExecutionOptions,
): Promise<StatusReport> {
  if (options.signal?.aborted) return cancelled(options.signal);
  const cwd = workingDirectory(assignment.cwd);
  const problem = await directoryProblem(cwd);
  if (problem !== undefined) return { status: 'failed', message: `The working directory ${cwd} ${problem}.` };
  const [program, ...args] = commandLine(provider.command, assignment.agent) as [string, ...string[]];
  let child: ChildProcessWithoutNullStreams;
  try {
    child = spawn(program, args, {
      cwd,
      env: executionEnvironment(assignment, provider, options.env ?? process.env),
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
  } catch (error) {
    // An argument or variable that no process can take, such as one with a NUL character.
    return { status: 'failed', message: `Cannot start ${program}: ${(error as Error).message}` };
  }
  const output = options.output ?? process.stderr;
  const graceMs = options.killGraceMs ?? 5_000;

  return new Promise<StatusReport>((resolve) => {
    let spawnError: Error | undefined;
    /** Why the daemon stopped the process, and the stopping under way. */
    let stopped: { report: StatusReport; done: Promise<void> } | undefined;
    let exited: Promise<void> | undefined;
    let idleTimer: Timer | undefined;
    let runtimeTimer: Timer | undefined;

    const stop = (report: StatusReport) => {
      if (stopped !== undefined || exited !== undefined || child.pid === undefined) return;
      idleTimer?.clear();
      runtimeTimer?.clear();
      stopped = { report, done: stopGroup(child.pid, graceMs) };
    };
    const idleMs = assignment.idleTimeoutMs;
    const armIdle = () => {
      if (idleMs === null || stopped !== undefined) return;
      idleTimer?.clear();
      idleTimer = after(idleMs, () => stop(timedOut(`no output for ${duration(idleMs)} (the idle timeout)`)));
    };
    const onAbort = () => stop(cancelled(options.signal));

    child.on('spawn', () => {
      options.onStatus?.({ status: 'running' });
      armIdle();
      const limit = assignment.maxRuntimeMs;
      runtimeTimer = after(limit, () => stop(timedOut(`ran longer than ${duration(limit)} (the maximum runtime)`)));
      options.signal?.addEventListener('abort', onAbort, { once: true });
      if (options.signal?.aborted) onAbort();
    });
    child.on('error', (error) => {
      if (child.pid === undefined) spawnError = error;
    });
    // Whatever the agent left running in its group ends with it; its pipes close only then.
    child.on('exit', () => {
      const pid = child.pid as number;
      exited = (stopped?.done ?? stopGroup(pid, graceMs)).then(() => closeSoon(child.stdout, child.stderr));
    });
    child.on('close', (code, signal) => {
      idleTimer?.clear();
      runtimeTimer?.clear();
      options.signal?.removeEventListener('abort', onAbort);
      void Promise.resolve(exited).then(() => {
        if (spawnError !== undefined)
          resolve({ status: 'failed', message: `Cannot start ${program}: ${spawnMessage(spawnError)}.` });
        else if (stopped !== undefined) resolve(stopped.report);
        else if (code === 0) resolve({ status: 'succeeded', exitCode: 0 });
        else if (code !== null)
          resolve({ status: 'failed', exitCode: code, message: `${program} exited with code ${code}.` });
        else resolve({ status: 'failed', message: `${program} was killed by ${signal}.` });
      });
    });

    for (const [name, stream] of [
      ['stdout', child.stdout],
      ['stderr', child.stderr],
    ] as const) {
      stream.on('data', (data: Buffer) => {
        armIdle();
        options.onOutput?.(name, data);
      });
      createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) =>
        output.write(`[${assignment.executionId}] ${line}\n`),
      );
    }
    // An agent that exits without reading its prompt closes the pipe: that is its business.
    child.stdin.on('error', () => {});
    child.stdin.end(assignment.prompt);
  });
}

async function directoryProblem(path: string): Promise<string | undefined> {
  try {
    return (await stat(path)).isDirectory() ? undefined : 'is not a directory';
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT'
      ? 'does not exist'
      : `cannot be used (${(error as Error).message})`;
  }
}

/** A process outside the group may still hold the agent's pipes; the execution does not wait for it. */
function closeSoon(...streams: Readable[]): void {
  setTimeout(() => streams.forEach((stream) => stream.destroy()), 1_000).unref();
}

function cancelled(signal: AbortSignal | undefined): StatusReport {
  return { status: 'cancelled', message: typeof signal?.reason === 'string' ? signal.reason : 'Cancelled.' };
}

function timedOut(what: string): StatusReport {
  return { status: 'timed_out', message: `Stopped: ${what}.` };
}

function spawnMessage(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'command not found';
  if (code === 'EACCES') return 'permission denied';
  return error.message;
}

function duration(ms: number): string {
  if (ms < 1_000) return `${ms} ms`;
  if (ms < 120_000) return `${Math.round(ms / 100) / 10} s`;
  return `${Math.round(ms / 6_000) / 10} min`;
}

/** Node's timers fire at once past 2^31 - 1 ms (about 24.8 days): longer waits are taken in steps. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

interface Timer {
  clear(): void;
}

/** Calls `fire` after `ms`, however long that is. */
export function after(ms: number, fire: () => void): Timer {
  let handle: NodeJS.Timeout;
  const arm = (left: number) => {
    handle = setTimeout(
      () => (left > LONGEST_TIMER_MS ? arm(left - LONGEST_TIMER_MS) : fire()),
      Math.min(left, LONGEST_TIMER_MS),
    );
  };
  arm(ms);
  return { clear: () => clearTimeout(handle) };
}
