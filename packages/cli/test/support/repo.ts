// Repositories on disk for `hub validate` and `hub deploy`, and the CLI run inside one.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { MAIN, type Finished } from './cli.js';

/** Writes `files` (path relative to `root` → content, bytes kept) under `root`. */
export function writeTree(root: string, files: Record<string, string | Buffer>): string {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

/** Runs `hub args` with `cwd` as the working directory; only the given environment (and PATH, HOME). */
export function hubIn(cwd: string, args: string[], env: Record<string, string> = {}): Promise<Finished> {
  return exec(process.execPath, [MAIN, ...args], cwd, {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/nonexistent',
    ...env,
  });
}

/** Runs `command args` to completion in `cwd` with exactly `env`, collecting what it prints. */
export async function exec(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<Finished> {
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, stdout, stderr };
}
