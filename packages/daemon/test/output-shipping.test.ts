// The agent's output on its way to a real hub, through a proxy that fails on purpose: every line
// stored once and in order across refused requests and lost answers, batches of bounded size
// one at a time, the oldest output dropped past the bound (and said so), and all of it sent
// before the final status.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_OUTPUT_LIMITS } from '../src/index.js';
import { faultyProxy, type Exchange, type FaultyProxy } from './support/faulty-proxy.js';
import { line, rig, until, type Rig } from './support/rig.js';

const isOutput = (exchange: Pick<Exchange, 'path'>) =>
  /^\/api\/v1\/daemon\/executions\/[^/]+\/output$/.test(exchange.path);
const chunksOf = (exchange: Exchange) =>
  (JSON.parse(exchange.body.toString('utf8')) as { chunks: { seq: number; text: string }[] }).chunks;
const lines = (from: number, to: number, pad = 0) =>
  Array.from({ length: to - from + 1 }, (_, i) => line(from + i, pad)).join('');

describe('output shipping', () => {
  let setup: Rig;
  let proxy: FaultyProxy;

  beforeAll(async () => {
    setup = await rig();
  }, 120_000);

  afterAll(async () => {
    await proxy?.close();
    await setup?.close();
  });

  const execution = async (runId: string, logs: () => string) =>
    (await setup.runOnce(runId, (run) => run.executions[0] !== undefined, logs)).executions[0]!.executionId;

  it('stores every line once and in order while requests are refused and answers lost, one batch at a time, each within the limits', async () => {
    proxy = await faultyProxy(setup.hub.url);
    const daemon = await setup.daemon(proxy.origin);
    const logs = () => daemon.logs.join('\n');
    const runId = await setup.dispatch('lines=40 gates=10,20,30');
    const executionId = await execution(runId, logs);
    await until('lines 1 to 10 at the hub', async () => (await setup.output(executionId)) === lines(1, 10), logs);

    // The hub stores the chunks; the daemon never hears so, and sends them again.
    proxy.fault = (request) => (isOutput(request) ? { kind: 'drop-answer' } : { kind: 'none' });
    setup.open(executionId, 10);
    await until(
      'two lost answers',
      () => proxy.exchanges.filter((exchange) => exchange.outcome === 'dropped').length >= 2,
      logs,
    );
    // Then the hub cannot be reached at all.
    proxy.fault = () => ({ kind: 'refuse' });
    setup.open(executionId, 20);
    await until(
      'two refusals',
      () => proxy.exchanges.filter((exchange) => isOutput(exchange) && exchange.outcome === 'refused').length >= 2,
      logs,
    );
    proxy.fault = () => ({ kind: 'none' });
    setup.open(executionId, 30);

    const run = await setup.runOnce(runId, (r) => r.status !== 'running', logs);
    expect(run.executions[0]).toMatchObject({ status: 'succeeded', exitCode: 0 });
    expect(await setup.output(executionId)).toBe(lines(1, 40));
    const stored = await setup.chunks(executionId);
    expect(stored.map((chunk) => chunk.seq)).toEqual(stored.map((_, i) => i));

    const sent = proxy.exchanges.filter(isOutput);
    const firstSeqs = sent.map((exchange) => chunksOf(exchange)[0]!.seq);
    expect(new Set(firstSeqs).size).toBeLessThan(firstSeqs.length);
    for (const exchange of sent) {
      const chunks = chunksOf(exchange);
      expect(chunks.length).toBeLessThanOrEqual(1_000);
      expect(chunks.reduce((sum, chunk) => sum + Buffer.byteLength(chunk.text), 0)).toBeLessThanOrEqual(64 * 1024);
      expect(chunks.map((chunk) => chunk.seq)).toEqual(chunks.map((_, i) => chunks[0]!.seq + i));
    }
    expect(proxy.mostAtOnce(`/api/v1/daemon/executions/${executionId}/output`)).toBe(1);
    await daemon.stop();
    await proxy.close();
  }, 90_000);

  it('past the bound drops the oldest unsent output, says how much in its place and in the log, and keeps the newest', async () => {
    proxy = await faultyProxy(setup.hub.url);
    const maxUnsentBytes = 16 * 1024;
    // The agent ends while the hub cannot be reached: its status waits for the output however long that takes.
    const daemon = await setup.daemon(proxy.origin, {
      outputLimits: { ...DEFAULT_OUTPUT_LIMITS, maxUnsentBytes, flushMs: 600_000 },
    });
    const logs = () => daemon.logs.join('\n');
    const pad = 1_000;
    const runId = await setup.dispatch(`lines=100 pad=${pad} gates=1`);
    const executionId = await execution(runId, logs);
    await until('line 1 at the hub', async () => (await setup.output(executionId)) === line(1, pad), logs);
    proxy.fault = () => ({ kind: 'refuse' });
    setup.open(executionId, 1);
    await until(
      'output dropped',
      () => daemon.logs.some((message) => message.includes('bytes of output wait for the hub; dropping the oldest')),
      logs,
    );
    await until('the agent done', () => daemon.logs.includes(`Execution ${executionId}: succeeded`), logs);
    proxy.fault = () => ({ kind: 'none' });
    await setup.runOnce(runId, (run) => run.status !== 'running', logs);

    // Output may be dropped more than once, depending on how the agent's writes come through the
    // pipe: the first batch after the refusals began (itself possibly after a marker) waits on its
    // way while later output fills the queue again. Whatever the count, each marker stands for
    // exactly the lines missing where it is, and with them put back the output is whole and in order.
    const text = await setup.output(executionId);
    const [kept, ...marked] = text.split(
      /\[hub daemon: (\d+) bytes of output dropped: the hub could not be reached\]\n/,
    );
    expect(marked.length).toBeGreaterThanOrEqual(2);
    const numbers = (part: string) =>
      part
        .split('\n')
        .filter(Boolean)
        .map((l) => Number(l.split(' ')[1]));
    let restored = kept!;
    let next = numbers(kept!).at(-1)! + 1;
    const markers: number[] = [];
    for (let i = 0; i < marked.length; i += 2) {
      const [bytes, part] = [Number(marked[i]), marked[i + 1]!];
      const first = numbers(part)[0]!;
      expect(first).toBeGreaterThan(next);
      const dropped = lines(next, first - 1, pad);
      expect(bytes).toBe(Buffer.byteLength(dropped));
      markers.push(bytes);
      restored += dropped + part;
      next = numbers(part).at(-1)! + 1;
    }
    expect(restored).toBe(lines(1, 100, pad));
    // What waited for the hub after line 1: at most the bound, plus the one batch on its way (taken from the queue, so within the bound too).
    const waited = text.slice(line(1, pad).length).replace(/\[hub daemon: .*\]\n/g, '');
    expect(Buffer.byteLength(waited)).toBeLessThanOrEqual(2 * maxUnsentBytes);
    for (const bytes of markers)
      expect(daemon.logs).toContain(
        `Execution ${executionId}: ${bytes} bytes of output dropped: the hub could not be reached.`,
      );
    const stored = await setup.chunks(executionId);
    expect(stored.filter((chunk) => chunk.text.startsWith('[hub daemon:')).map((chunk) => chunk.stream)).toEqual(
      markers.map(() => 'stderr'),
    );
    expect(stored.map((chunk) => chunk.seq)).toEqual(stored.map((_, i) => i));
    await daemon.stop();
    await proxy.close();
  }, 90_000);

  it('sends all of the output before it reports the final status', async () => {
    proxy = await faultyProxy(setup.hub.url);
    // Slow answers to output: the agent is long gone while its output is still on the way.
    proxy.fault = (request) => (isOutput(request) ? { kind: 'delay', ms: 300 } : { kind: 'none' });
    const daemon = await setup.daemon(proxy.origin);
    const logs = () => daemon.logs.join('\n');
    const runId = await setup.dispatch('lines=2000 pad=100 exit=3');
    const executionId = await execution(runId, logs);
    const run = await setup.runOnce(runId, (r) => r.status !== 'running', logs);

    expect(run.executions[0]).toMatchObject({ status: 'failed', exitCode: 3 });
    expect(await setup.output(executionId)).toBe(lines(1, 2000, 100));
    const final = proxy.events.findIndex(
      ({ kind, exchange }) =>
        kind === 'request' && exchange.path.endsWith('/status') && exchange.body.toString().includes('"failed"'),
    );
    const lastOutput = proxy.events.findLastIndex(({ kind, exchange }) => kind === 'outcome' && isOutput(exchange));
    expect(final).toBeGreaterThan(lastOutput);
    expect(proxy.exchanges.filter(isOutput).length).toBeGreaterThan(1);
    await daemon.stop();
    await proxy.close();
  }, 90_000);
});
