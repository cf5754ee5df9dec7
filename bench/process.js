// Child processes of the benchmarks: a hub (or a baseline server) started and stopped the same way
// by each of them.
import { spawn } from 'node:child_process';

/**
 * How to stop `child`: SIGTERM, then SIGKILL if it has not exited within 15 s; resolves once it
 * has exited (at once if it already has).
 * @param {import('node:child_process').ChildProcess} child
 * @returns {() => Promise<void>}
 */
export function stopperOf(child) {
  const closed = new Promise((resolve) => child.on('close', resolve));
  return async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await closed;
    clearTimeout(timer);
  };
}

/**
 * @typedef {{ child: import('node:child_process').ChildProcessWithoutNullStreams, url: string, output: () => string, stop: () => Promise<void> }} Started
 */

/**
 * Starts `node args` in `cwd` and resolves with it and the URL it prints ("listening on http://…");
 * a process that exits first, or prints none within 60 s, is stopped and is an error.
 * @param {string[]} args
 * @param {Record<string, string>} env
 * @param {{ cwd: string }} options
 * @returns {Promise<Started>}
 */
export async function startProcess(args, env, { cwd }) {
  const child = spawn(process.execPath, args, {
    cwd,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const stop = stopperOf(child);
  try {
    const url = await new Promise((resolve, reject) => {
      const timer = setInterval(() => {
        const match = /listening on (http:\/\/\S+)/i.exec(output);
        if (match) {
          clearInterval(timer);
          clearTimeout(timeout);
          resolve(match[1]);
        }
      }, 20);
      const timeout = setTimeout(
        () => reject(new Error(`${args.join(' ')} did not start within 60 s:\n${output}`)),
        60_000,
      );
      child.on('exit', (code) => {
        clearInterval(timer);
        clearTimeout(timeout);
        reject(new Error(`${args.join(' ')} exited with ${code}:\n${output}`));
      });
    });
    return { child, url: /** @type {string} */ (url), output: () => output, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
