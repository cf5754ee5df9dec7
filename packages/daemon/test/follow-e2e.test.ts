// Issue 13 end to end, with real parts: two hub instances on one PostgreSQL, the reference daemon
// long-polling the first, and people reading from the second. A chatty agent's output followed
// live as Server-Sent Events comes once and in order, also across a drop of the reader, a restart
// of the daemon and a restart of the hub it talks to; a silent agent cancelled from the second
// hub ends cancelled, its process gone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../server/test/support/client.js';
import { isRunning } from '../../cli/test/support/processes.js';
import { lines, twoHubs, type FollowDaemon, type Following, type TwoHubs } from './support/follow.js';
import { until, type Run } from './support/rig.js';

/** The events are numbered 0, 1, 2… without a gap or a repeat, each under its own id, all stdout, and together they are `expected`. */
function expectOnceInOrder(following: Following, expected: string): void {
  const { events } = following;
  expect(events.map((event) => event.seq)).toEqual(events.map((_, i) => i));
  expect(events.map((event) => event.id)).toEqual(events.map((event) => String(event.seq)));
  expect(events.filter((event) => event.stream !== 'stdout')).toEqual([]);
  expect(events.map((event) => event.text).join('')).toBe(expected);
}

describe('following runs across two hub instances', () => {
  let hubs: TwoHubs;
  let daemon: FollowDaemon;
  const logs = () => `daemon:\n${daemon.logs.join('\n')}\nhub 1:\n${hubs.one.output()}\nhub 2:\n${hubs.two.output()}`;

  beforeAll(async () => {
    hubs = await twoHubs();
    daemon = await hubs.daemon();
  }, 120_000);

  afterAll(async () => {
    await hubs?.close();
  });

  /** The run once it has ended, read from the second hub; fails after `ms`. */
  async function ended(runId: string, ms: number): Promise<Run> {
    const deadline = Date.now() + ms;
    for (;;) {
      const run = await hubs.run(runId);
      if (run.status !== 'running') return run;
      if (Date.now() > deadline)
        throw new Error(`run ${runId} still running after ${ms / 1_000} s: ${JSON.stringify(run)}\n${logs()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it('streams a chatty agent live from the other instance: every line once and in order, then the end, also to a reader that drops and resumes', async () => {
    // The agent waits after line 1 until both readers have it: the other 39 lines come while they listen.
    const runId = await hubs.dispatch('lines=40 every=20 gates=1');
    const executionId = await hubs.execution(runId, logs);
    const live = hubs.follow(executionId);
    const resumed = hubs.follow(executionId, { dropAfter: 2 });
    await until('line 1 at both readers', () => live.events.length > 0 && resumed.events.length > 0, logs);
    hubs.open(executionId, 1);

    const end = { executionId, status: 'succeeded', exitCode: 0, message: null };
    expect(await live.ended).toEqual(end);
    expectOnceInOrder(live, lines(40));
    expect(live.connections).toEqual([undefined]);
    expect(await resumed.ended).toEqual(end);
    expectOnceInOrder(resumed, lines(40));
    expect(resumed.connections).toEqual([undefined, '1']);
    expect(await hubs.output(executionId)).toBe(lines(40));
    expect(await hubs.run(runId)).toMatchObject({ status: 'succeeded' });
  }, 90_000);

  it('loses and doubles no line when the daemon restarts mid-run; the run ends cancelled, and the restarted daemon takes the next one', async () => {
    const runId = await hubs.dispatch('lines=40 every=100');
    const executionId = await hubs.execution(runId, logs);
    const following = hubs.follow(executionId);
    const pid = await hubs.agentPid(executionId);
    await daemon.whenPrinted(executionId, 15);
    expect(await daemon.stop()).toEqual({});

    // Everything the daemon read of the agent before it stopped it, and nothing else.
    const printed = daemon.printed(executionId);
    expect(printed).toBeGreaterThanOrEqual(15);
    expect(printed).toBeLessThan(40);
    expect(isRunning(pid)).toBe(false);
    expect(daemon.logs.at(-1)).toBe('Told the hub that this daemon is offline.');
    const stopped = { executionId, status: 'cancelled', exitCode: null, message: 'Cancelled: received SIGTERM.' };
    expect(await following.ended).toEqual(stopped);
    expectOnceInOrder(following, lines(printed));
    expect(await hubs.output(executionId)).toBe(lines(printed));
    expect(await hubs.run(runId)).toMatchObject({
      status: 'cancelled',
      executions: [{ executionId, status: 'cancelled', message: stopped.message }],
    });

    daemon = await hubs.daemon();
    const next = await hubs.dispatch('lines=3 every=0');
    const nextExecution = await hubs.execution(next, logs);
    const nextFollowing = hubs.follow(nextExecution);
    expect(await nextFollowing.ended).toMatchObject({ status: 'succeeded', exitCode: 0 });
    expectOnceInOrder(nextFollowing, lines(3));
    expect(daemon.logs).toContain(`Execution ${nextExecution}: succeeded`);
  }, 90_000);

  it('loses and doubles no line when the hub the daemon talks to restarts mid-run, the agent printing before, during and after', async () => {
    // Lines 1-15 with the hub up; 16-30 while it is down (the daemon's batches fail and are sent
    // again); 31-40 once it is back.
    const runId = await hubs.dispatch('lines=40 every=100 gates=15,30');
    const executionId = await hubs.execution(runId, logs);
    const following = hubs.follow(executionId);
    await daemon.whenPrinted(executionId, 15);
    expect(await hubs.stopOne()).toBe(0);
    hubs.open(executionId, 15);
    await daemon.whenPrinted(executionId, 30);
    await hubs.startOne();
    hubs.open(executionId, 30);

    expect(await following.ended).toEqual({ executionId, status: 'succeeded', exitCode: 0, message: null });
    expectOnceInOrder(following, lines(40));
    expect(following.connections).toEqual([undefined]);
    expect(await hubs.run(runId)).toMatchObject({
      status: 'succeeded',
      executions: [{ executionId, status: 'succeeded', exitCode: 0 }],
    });
    // The daemon saw the outage and its end; it dropped nothing.
    const outage = daemon.logs.filter((message) => /^The hub (is unavailable|answers again)/.test(message));
    expect(outage[0]).toMatch(/^The hub is unavailable \(/);
    expect(outage.at(-1)).toMatch(/^The hub answers again after \d+ s\.$/);
    expect(daemon.logs.filter((message) => message.includes('dropped') || message.includes('not sent'))).toEqual([]);
  }, 120_000);

  it('cancels a silent agent from the other instance: the run ends cancelled within seconds and the agent is gone', async () => {
    const runId = await hubs.dispatch('lines=0 silence=60');
    const executionId = await hubs.execution(runId, logs);
    const pid = await hubs.agentPid(executionId);
    await until('the execution running', async () => (await hubs.run(runId)).executions[0]?.status === 'running', logs);
    const following = hubs.follow(executionId);

    const cancel = await call(hubs.two, 'POST', `/api/v1/runs/${runId}/cancel`, { token: hubs.key });
    expect(cancel.status).toBe(202);
    expect(cancel.body.cancelRequestedAt).not.toBeNull();
    const run = await ended(runId, 20_000);
    expect(run).toMatchObject({
      status: 'cancelled',
      executions: [{ executionId, status: 'cancelled', message: 'Cancelled at the hub.' }],
    });
    expect(isRunning(pid)).toBe(false);
    expect(await following.ended).toEqual({
      executionId,
      status: 'cancelled',
      exitCode: null,
      message: 'Cancelled at the hub.',
    });
    expect(following.events).toEqual([]);
    expect(daemon.logs).toContain(`Execution ${executionId}: cancelled at the hub; stopping it.`);
  }, 90_000);
});
