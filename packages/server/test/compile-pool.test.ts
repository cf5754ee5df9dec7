import { execFileSync } from 'node:child_process';
import { PerformanceObserver } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { createReclaimer } from '../dist/compile/reclaim.js';
import type { TaskResult } from '../dist/compile/tasks.js';
import { configurationPartials, configurationYaml } from './support/documents.js';

const catalog = { daemons: [{ name: 'dev-box', runtimes: [{ provider: 'claude' }] }] };

/**
 * Runs `body` in a plain node process (the worker threads of a pool started under vitest would
 * inherit its source-resolving conditions) with the pool as `createCompilePool` and the example
 * documents; resolves with what the body returns.
 */
function inNode(body: string): unknown {
  const pool = new URL('../dist/compile/pool.js', import.meta.url).href;
  const script = `import { createCompilePool } from ${JSON.stringify(pool)};
    const yaml = ${JSON.stringify(configurationYaml)}, partials = ${JSON.stringify(configurationPartials)}, catalog = ${JSON.stringify(catalog)};
    const { readdirSync, readFileSync } = await import('node:fs');
    const niceness = () => readdirSync('/proc/self/task').map((tid) => Number(readFileSync('/proc/self/task/' + tid + '/stat', 'utf8').split(') ')[1].split(' ')[16]));
    const result = await (async () => { ${body} })();
    process.stdout.write(JSON.stringify(result));`;
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  return JSON.parse(output);
}

describe('the compile pool', () => {
  it('compiles in a worker thread at a lower CPU priority than the threads serving requests', () => {
    const seen = inNode(`
      const before = niceness();
      const pool = createCompilePool({ inlineBelow: 0, threads: 1 });
      const result = await pool.compile({ kind: 'configuration', input: { yaml, partials }, catalog });
      const during = niceness();
      await pool.close();
      return { ok: result.ok, before, during };`) as { ok: boolean; before: number[]; during: number[] };
    expect(seen.ok).toBe(true);
    expect(seen.before.filter((nice) => nice !== 0)).toEqual([]);
    expect(seen.during.filter((nice) => nice === 19)).toHaveLength(1);
  });

  it('answers the same from a worker as inline: the model as JSON text, the trigger names, or the issues and their stage', () => {
    const [inWorker, inline] = inNode(`
      const tasks = [
        { kind: 'configuration', input: { yaml, partials }, catalog },
        { kind: 'configuration', input: { yaml, partials }, catalog: { daemons: [] } },
        { kind: 'trigger', input: { yaml: 'version: [' }, catalog },
      ];
      const answers = [];
      for (const inlineBelow of [0, Infinity]) {
        const pool = createCompilePool({ inlineBelow, threads: 1 });
        answers.push(await Promise.all(tasks.map((task) => pool.compile(task))));
        await pool.close();
      }
      return answers;`) as [TaskResult[], TaskResult[]];
    expect(inWorker).toEqual(inline);
    const [valid, unresolved, broken] = inline;
    expect(valid?.ok && JSON.parse(valid.model)).toMatchObject({ triggers: expect.any(Array) });
    expect(valid).toMatchObject({ ok: true, triggerNames: expect.arrayContaining([expect.any(String)]) });
    expect(unresolved).toMatchObject({ ok: false, stage: 'resources' });
    expect(broken).toMatchObject({ ok: false, stage: 'compile' });
  });
});

describe('the reclaimer', () => {
  it('runs a full collection once large work has been quiet for the given time', async () => {
    const majors: number[] = [];
    const observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) if ((entry as { detail?: { kind?: number } }).detail?.kind === 4) majors.push(entry.startTime);
    });
    observer.observe({ entryTypes: ['gc'] });
    const reclaimer = createReclaimer(200);
    try {
      const started = performance.now();
      reclaimer.afterLargeWork();
      await new Promise((resolve) => setTimeout(resolve, 100));
      reclaimer.afterLargeWork(); // more large work: the quiet period starts again
      await new Promise((resolve) => setTimeout(resolve, 500));
      const late = majors.filter((time) => time >= started + 290);
      expect(late.length).toBeGreaterThanOrEqual(1);
    } finally {
      reclaimer.close();
      observer.disconnect();
    }
  });
});
