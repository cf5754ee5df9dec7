// The embedded PostgreSQL's child processes: how they are spawned and watched, and ended with the
// hub (db/embedded.ts starts them).
import { type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import type { Account } from './embedded-access.js';
import type { PostgresLog } from './embedded.js';

/** PostgreSQL processes (and initdb) this process started and has not seen exit. */
const children = new Set<ChildProcess>();

/**
 * Ends at once what this process started: PostgreSQL by immediate shutdown (no checkpoint; it
 * recovers from its WAL on the next start), initdb by interrupt (it removes what it made).
 */
export async function stopEmbeddedNow(): Promise<void> {
  await Promise.all(
    [...children].map(async (child) => {
      const exited = onceExited(child);
      child.kill(child.spawnfile.endsWith('initdb') ? 'SIGINT' : 'SIGQUIT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }),
  );
}

// PostgreSQL is not in the hub's process group: if the hub ends without stopping it (an uncaught
// error), it is told to stop now rather than left running.
process.on('exit', () => {
  for (const child of children) child.kill('SIGINT');
});

/** The child's options: its own session, and as root the postgres account (and only its primary group). */
export function spawnOptions(account: Account | undefined) {
  return {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'] as ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, LC_MESSAGES: 'C' },
    ...(account === undefined ? {} : { uid: account.uid, gid: account.gid }),
  };
}

/** Keeps a child's output: every line to the log (debug), the last few for an error message. */
export function collect(
  child: ChildProcess,
  log: PostgresLog,
): { tail(): string; onLine(listener: (line: string) => void): void } {
  const lines: string[] = [];
  const listeners: ((line: string) => void)[] = [];
  const take = (chunk: Buffer) => {
    const text = chunk.toString('utf8').trim();
    if (text === '') return;
    log.debug('postgres', { message: text });
    for (const line of text.split('\n')) {
      lines.push(line);
      if (lines.length > 20) lines.shift();
      for (const listener of listeners) listener(line);
    }
  };
  child.stdout?.on('data', take);
  child.stderr?.on('data', take);
  return { tail: () => lines.join('\n'), onLine: (listener) => listeners.push(listener) };
}

export function track(
  child: ChildProcess,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }> {
  children.add(child);
  return new Promise((resolveExit) => {
    child.on('error', (error) => {
      children.delete(child);
      resolveExit({ code: null, signal: null, error });
    });
    child.on('exit', (code, signal) => {
      children.delete(child);
      resolveExit({ code, signal });
    });
  });
}

export function onceExited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolveExit) => child.once('exit', () => resolveExit()));
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function gone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (alive(pid)) {
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
  return true;
}

export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address !== null ? resolvePort(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolveSleep) => setTimeout(resolveSleep, ms));
}
