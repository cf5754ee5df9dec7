import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReclaimer } from '../dist/compile/reclaim.js';
import type { TaskResult } from '../dist/compile/tasks.js';
import { call, expectProblem, setUp } from './support/client.js';
import { configurationPartials, configurationYaml } from './support/documents.js';
import { hubOn } from './support/hub.js';

/**
 * A configuration of 90,000 top-level keys in 990,000 characters (within the 1,000,000 a document
 * may have): invalid (422), and over 100 MB of heap to compile; more than a worker capped at 32 MB has.
 */
const manyKeysOf = (): string =>
  Array.from({ length: 90_000 }, (_, i) => `k${String(i).padStart(6, '0')}: 1\n`).join('');
const manyKeys = manyKeysOf();
/** The example configuration, padded with a comment past the size that compiles inline (64 K characters): a worker's, and small for it. */
const paddedExample = `${configurationYaml}\n# ${'padding '.repeat(10_000)}\n`;

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
    const manyKeys = (${manyKeysOf.toString()})();
    const outcome = (settled) => settled.status === 'fulfilled' ? { ok: settled.value.ok } : { code: settled.reason.code, retryAfter: settled.reason.headers?.['Retry-After'], message: String(settled.reason.message) };
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

describe('the compile pool under load', () => {
  it('refuses a large compile past the queue at once with server_busy and a Retry-After, and compiles the ones it took', () => {
    const { first, later } = inNode(`
      const { taskSize } = await import(${JSON.stringify(new URL('../dist/compile/tasks.js', import.meta.url).href)});
      const task = { kind: 'configuration', input: { yaml, partials }, catalog };
      const pool = createCompilePool({ inlineBelow: 0, threads: 1, queueCharacters: 2 * taskSize(task) });
      const first = (await Promise.allSettled([1, 2, 3, 4].map(() => pool.compile(task)))).map(outcome);
      const later = outcome((await Promise.allSettled([pool.compile(task)]))[0]);
      await pool.close();
      return { first, later };`) as {
      first: { ok?: boolean; code?: string; retryAfter?: string }[];
      later: { ok?: boolean };
    };
    // Room for two: one running and one waiting are taken; the two past them are refused without waiting.
    expect(first.slice(0, 2)).toEqual([{ ok: true }, { ok: true }]);
    for (const refused of first.slice(2)) {
      expect(refused).toMatchObject({ code: 'server_busy' });
      expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    }
    expect(later).toEqual({ ok: true });
  });

  it("answers server_busy for a compile that outgrows its worker's memory, replaces the worker, and compiles what waited behind it", () => {
    const { big, behind, after } = inNode(`
      const pool = createCompilePool({ inlineBelow: 0, threads: 1, memoryMb: 32 });
      const [big, behind] = (await Promise.allSettled([
        pool.compile({ kind: 'configuration', input: { yaml: manyKeys }, catalog }),
        pool.compile({ kind: 'configuration', input: { yaml, partials }, catalog }),
      ])).map(outcome);
      const after = outcome((await Promise.allSettled([pool.compile({ kind: 'configuration', input: { yaml, partials }, catalog })]))[0]);
      await pool.close();
      return { big, behind, after };`) as {
      big: { code?: string; retryAfter?: string; message?: string };
      behind: { ok?: boolean };
      after: { ok?: boolean };
    };
    expect(big).toMatchObject({ code: 'server_busy', message: expect.stringContaining('32 MB') });
    expect(Number(big.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(behind).toEqual({ ok: true });
    expect(after).toEqual({ ok: true });
    // A worker near its ceiling collects again and again before it gives up: on a machine busy
    // with other work that takes a while, so a generous bound against a hang, not a clock.
  }, 120_000);
});

describe("the compile pool's lanes", () => {
  /**
   * The pool's worker with a gate in front: a task whose catalog carries a SharedArrayBuffer waits
   * on it (Atomics.wait) until the test opens it, then compiles as any other. So the large compile
   * is provably still running (waiting in its worker) while the smaller ones are answered.
   */
  const gated = (dir: string): string => {
    const file = join(dir, 'gated-worker.mjs');
    const worker = new URL('../dist/compile/worker.js', import.meta.url).href;
    writeFileSync(
      file,
      `import compile from ${JSON.stringify(worker)};
      export default function (task) {
        const gate = task.catalog.gate;
        if (gate !== undefined) Atomics.wait(new Int32Array(gate), 0, 0);
        return compile(task);
      }`,
    );
    return file;
  };

  it('answers an inline and a small-lane document while a large compile occupies the large lane, and the large one after', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hub-lanes-'));
    try {
      const order = inNode(`
        const gate = new SharedArrayBuffer(4);
        const pool = createCompilePool({ inlineBelow: 1024, largeFrom: 100 * 1024, threads: 1, worker: new URL(${JSON.stringify(`file://${gated(dir)}`)}) });
        const answered = [];
        const large = pool.compile({ kind: 'configuration', input: { yaml: yaml + '#' + ' '.repeat(100 * 1024) + '\\n', partials }, catalog: { ...catalog, gate } })
          .then((result) => { answered.push('large ' + result.ok); });
        const small = await pool.compile({ kind: 'configuration', input: { yaml: yaml + '#' + ' '.repeat(2 * 1024) + '\\n', partials }, catalog });
        answered.push('small-lane ' + small.ok);
        const inline = await pool.compile({ kind: 'trigger', input: { yaml: 'version: [' }, catalog });
        answered.push('inline ' + inline.ok);
        // Only now may the large compile go on.
        Atomics.store(new Int32Array(gate), 0, 1);
        Atomics.notify(new Int32Array(gate), 0);
        await large;
        await pool.close();
        return answered;`);
      expect(order).toEqual(['small-lane true', 'inline false', 'large true']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('a hub whose compiles may use 32 MB', () => {
  let hub: Awaited<ReturnType<typeof hubOn>>;
  let key: string;
  let project: string;

  beforeAll(async () => {
    hub = await hubOn('external', { HUB_COMPILE_MEMORY_MB: '32' });
    ({ key, project } = await setUp(hub));
  }, 120_000);
  afterAll(async () => {
    await hub?.close();
  });

  it('answers 503 server_busy with Retry-After for a document that needs more, and goes on compiling the rest', async () => {
    const busy = await call(hub, 'POST', '/api/v1/configurations/validate', {
      token: key,
      body: { projectSlug: project, yaml: manyKeys },
    });
    expectProblem(busy, 503, 'server_busy');
    expect(Number(busy.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const installBusy = await call(hub, 'POST', '/api/v1/configurations/install', {
      token: key,
      body: { projectSlug: project, yaml: manyKeys },
    });
    expectProblem(installBusy, 503, 'server_busy');
    // A large document that fits goes to a new worker; a small one compiles inline.
    const large = await call(hub, 'POST', '/api/v1/configurations/validate', {
      token: key,
      body: { projectSlug: project, yaml: paddedExample, partials: configurationPartials },
    });
    expect(large.status).toBe(422); // the example's daemons are not enrolled in this organization
    expect(large.body.issues).toEqual(
      expect.arrayContaining([expect.objectContaining({ code: 'resource.unknown_daemon' })]),
    );
    expect(paddedExample.length).toBeGreaterThan(64 * 1024);
    const small = await call(hub, 'POST', '/api/v1/configurations/validate', {
      token: key,
      body: { projectSlug: project, yaml: configurationYaml, partials: configurationPartials },
    });
    expect(small.status).toBe(422);
    // Nothing was installed by the refused install.
    const [row] = await hub.sql`select count(*)::int as n from configuration_revisions`;
    expect(row?.n).toBe(0);
  }, 120_000);
});

describe('the reclaimer', () => {
  it('runs a full collection once large work has been quiet for the given time', async () => {
    const majors: number[] = [];
    const observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries())
        if ((entry as { detail?: { kind?: number } }).detail?.kind === 4) majors.push(entry.startTime);
    });
    observer.observe({ entryTypes: ['gc'] });
    const reclaimer = createReclaimer(200);
    try {
      const started = performance.now();
      reclaimer.afterLargeWork();
      await new Promise((resolve) => setTimeout(resolve, 100));
      reclaimer.afterLargeWork(); // more large work: the quiet period starts again
      // The collection comes 200 ms after the last large work at the soonest; a loaded machine
      // only makes it later, so wait for it (the test's timeout ends a reclaimer that never runs).
      while (!majors.some((time) => time >= started + 290)) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(majors.filter((time) => time >= started + 290).length).toBeGreaterThanOrEqual(1);
    } finally {
      reclaimer.close();
      observer.disconnect();
    }
  });
});
