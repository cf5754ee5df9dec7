// Cancellation and a clean stop with a real hub: a daemon at its concurrency limit keeps a
// long poll open without capacity, hears the hub's cancel on it, stops the agent's process tree
// and reports it cancelled; a cancel for an execution it does not run changes nothing; a
// stopping daemon says it is offline once, after its last status.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../server/test/support/client.js';
import { isRunning } from '../../cli/test/support/processes.js';
import { faultyProxy, type Exchange, type FaultyProxy } from './support/faulty-proxy.js';
import { line, rig, until, type Rig } from './support/rig.js';

const isPoll = (exchange: Pick<Exchange, 'path'>) => exchange.path.startsWith('/api/v1/daemon/assignments/next?');

describe('cancel and stop', () => {
  let setup: Rig;
  let proxy: FaultyProxy;

  beforeAll(async () => {
    setup = await rig();
  }, 120_000);

  afterAll(async () => {
    await proxy?.close();
    await setup?.close();
  });

  it('at its limit polls with capacity=0, stops a run cancelled at the hub and reports it cancelled, ignoring cancels of executions it does not run', async () => {
    proxy = await faultyProxy(setup.hub.url);
    // The first poll without capacity is answered by the proxy: a cancel of an execution this daemon does not run.
    proxy.fault = (request) =>
      request.path.endsWith('&capacity=0') && !proxy.exchanges.some((exchange) => exchange.outcome === 'injected')
        ? { kind: 'answer', status: 200, body: { cancel: [randomUUID()] } }
        : { kind: 'none' };
    const daemon = await setup.daemon(proxy.origin, { concurrency: 1 });
    const logs = () => daemon.logs.join('\n');
    const runId = await setup.dispatch('lines=1 hold=yes');
    const { executionId } = (await setup.runOnce(runId, (run) => run.executions[0]?.status === 'running', logs))
      .executions[0]!;
    const pid = await setup.agentPid(executionId);
    await until(
      'a poll after the injected cancel',
      () =>
        proxy.exchanges
          .slice(proxy.exchanges.findIndex((exchange) => exchange.outcome === 'injected') + 1)
          .some(isPoll),
      logs,
    );

    const delivered = proxy.exchanges.findIndex((exchange) => isPoll(exchange) && exchange.outcome === 200);
    const since = proxy.exchanges.slice(delivered + 1).filter(isPoll);
    expect(since.length).toBeGreaterThanOrEqual(2);
    expect(since.filter((exchange) => !exchange.path.endsWith('&capacity=0'))).toEqual([]);
    expect(isRunning(pid)).toBe(true);
    await until('line 1 at the hub', async () => (await setup.output(executionId)) === line(1), logs);
    const cancelledHere = await call(setup.hub, 'POST', `/api/v1/runs/${runId}/cancel`, { token: setup.key });
    expect(cancelledHere.status).toBe(202);

    const run = await setup.runOnce(runId, (r) => r.status !== 'running', logs);
    expect(run).toMatchObject({
      status: 'cancelled',
      executions: [{ status: 'cancelled', message: 'Cancelled at the hub.' }],
    });
    expect(run.cancelRequestedAt).not.toBeNull();
    expect(isRunning(pid)).toBe(false);
    expect(await setup.output(executionId)).toBe(line(1));
    expect(daemon.logs.filter((message) => message.includes('cancelled at the hub; stopping it'))).toEqual([
      `Execution ${executionId}: cancelled at the hub; stopping it.`,
    ]);

    // The slot is free again: the next poll may take an assignment.
    const next = await setup.dispatch('lines=2');
    expect(await setup.runOnce(next, (r) => r.status !== 'running', logs)).toMatchObject({ status: 'succeeded' });
    await daemon.stop();
    await proxy.close();
  }, 90_000);

  it('on stop reports its executions cancelled, then tells the hub once that it is offline: a dispatch right after is 409 daemon_offline', async () => {
    proxy = await faultyProxy(setup.hub.url);
    const daemon = await setup.daemon(proxy.origin);
    const logs = () => daemon.logs.join('\n');
    const runId = await setup.dispatch('lines=1 hold=yes');
    const { executionId } = (await setup.runOnce(runId, (run) => run.executions[0]?.status === 'running', logs))
      .executions[0]!;
    await until('line 1 at the hub', async () => (await setup.output(executionId)) === line(1), logs);

    expect(await daemon.stop()).toEqual({});
    expect(await setup.run(runId)).toMatchObject({
      executions: [{ status: 'cancelled', message: 'Cancelled: received SIGTERM.' }],
    });
    const offline = proxy.exchanges.filter((exchange) => exchange.path === '/api/v1/daemon/offline');
    expect(offline).toMatchObject([{ method: 'POST', outcome: 204 }]);
    const last = proxy.exchanges.at(-1);
    expect(last).toBe(offline[0]);
    expect(
      proxy.exchanges.some(
        (exchange) =>
          exchange.path.endsWith(`/executions/${executionId}/status`) &&
          exchange.body.toString().includes('"cancelled"'),
      ),
    ).toBe(true);
    expect(daemon.logs.at(-1)).toBe('Told the hub that this daemon is offline.');

    const refused = await setup.tryDispatch('');
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('daemon_offline');
    await proxy.close();
  }, 90_000);

  it('stops all the same when the hub cannot be told, and says so', async () => {
    proxy = await faultyProxy(setup.hub.url);
    const daemon = await setup.daemon(proxy.origin);
    proxy.fault = () => ({ kind: 'refuse' });
    expect(await daemon.stop()).toEqual({});
    expect(daemon.logs.at(-1)).toMatch(
      /^Could not tell the hub that this daemon is offline \(cannot reach .*\); it counts as offline once it misses its heartbeats\.$/,
    );
    await proxy.close();
  }, 60_000);
});
