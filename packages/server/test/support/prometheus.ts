// Reading Prometheus's text format, and a real Prometheus (Debian's `prometheus`) started by a test
// on a free port, with the config and the files beside it that the test writes.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** `name{labels} value` lines of the text format, as [name, labels, value]. */
export function samples(text: string): [string, Record<string, string>, number][] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (match === null) throw new Error(`not a sample: ${line}`);
      const labels = Object.fromEntries(
        [...(match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((pair) => [
          pair[1],
          pair[2],
        ]),
      );
      return [match[1] as string, labels as Record<string, string>, Number(match[3])];
    });
}

/** The sum of the samples of `name` that have `labels` (among others). */
export function sampleValue(text: string, name: string, labels: Record<string, string> = {}): number {
  return samples(text)
    .filter(([found, has]) => found === name && Object.entries(labels).every(([key, want]) => has[key] === want))
    .reduce((sum, [, , count]) => sum + count, 0);
}

/** A port free a moment ago, for a process that takes no port 0. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface Target {
  labels: Record<string, string>;
  health: string;
  lastError: string;
}

export interface RunningPrometheus {
  /** An instant query's result; empty while Prometheus does not answer yet. */
  query(promql: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]>;
  /** The active targets; empty while Prometheus does not answer yet. */
  targets(): Promise<Target[]>;
  /** The names of the rules it loaded. */
  rules(): Promise<string[]>;
  stop(): Promise<void>;
}

/** Starts `prometheus` with `files` (prometheus.yml among them) in a directory of its own. */
export async function startPrometheus(files: Record<string, string>): Promise<RunningPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'hub-prometheus-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text, { mode: 0o600 });
  const port = await freePort();
  const child = spawn(
    'prometheus',
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { stdio: 'ignore' },
  );
  // Without the program, `error` (ENOENT) and no `close`: every query then finds nothing.
  const closed = new Promise((resolve) => child.on('close', resolve).on('error', resolve));
  const api = async <T>(path: string, empty: T): Promise<T> => {
    const answer = await fetch(`http://127.0.0.1:${port}/api/v1/${path}`).catch(() => undefined);
    if (answer?.status !== 200) return empty;
    return ((await answer.json()) as { data: T }).data;
  };
  return {
    query: async (promql) => (await api(`query?query=${encodeURIComponent(promql)}`, { result: [] as never[] })).result,
    targets: async () => (await api('targets', { activeTargets: [] as Target[] })).activeTargets,
    rules: async () =>
      (await api('rules', { groups: [] as { rules: { name: string }[] }[] })).groups.flatMap((group) =>
        group.rules.map((rule) => rule.name),
      ),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await closed;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
