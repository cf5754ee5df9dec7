// Runs the built `hub` executable as a child process, as a user would: the bundle that
// package.json's "bin" names (vitest's global setup, support/bundle.ts, brings it up to date).
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const MAIN = fileURLToPath(new URL('../../dist/bundle/hub.js', import.meta.url));

/** Only what the test gives: the tests' own HUB_* variables never leak in. */
function environment(env: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/nonexistent', ...env };
}

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `hub args` to completion, with `input` on standard input (closed right after). */
export async function hub(
  args: string[],
  options: { env?: Record<string, string>; input?: string } = {},
): Promise<Finished> {
  const child = spawn(process.execPath, [MAIN, ...args], {
    env: environment(options.env ?? {}),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const output = collect(child);
  child.stdin?.end(options.input ?? '');
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, ...output() };
}

export interface Running {
  child: ChildProcess;
  output: () => { stdout: string; stderr: string };
  /** Resolves once standard error matches `pattern`; rejects after `ms`, showing the output so far. */
  waitFor(pattern: RegExp, ms?: number): Promise<void>;
  exited: Promise<number | null>;
}

/** Starts `hub args` and leaves it running. */
export function start(args: string[], options: { env?: Record<string, string> } = {}): Running {
  const child = spawn(process.execPath, [MAIN, ...args], {
    env: environment(options.env ?? {}),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = collect(child);
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return {
    child,
    output,
    exited,
    async waitFor(pattern, ms = 15_000) {
      const deadline = Date.now() + ms;
      while (!pattern.test(output().stderr)) {
        if (Date.now() > deadline) throw new Error(`no ${pattern} within ${ms} ms; stderr:\n${output().stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
  };
}

function collect(child: ChildProcess): () => { stdout: string; stderr: string } {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return () => ({ stdout, stderr });
}
