// Following runs on a real hub: the daemon's output (stored once, in order, cut past its cap),
// read as text or as a live SSE stream from another instance; the runs list and its cursor;
// cancellation through the daemon's long-poll; a daemon that says it stops.
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, setUp } from './support/client.js';
import { TestDaemon } from './support/daemon.js';
import { databases, freshDatabase, hubOn, startHub, type RunningHub } from './support/hub.js';
import { takeEvents, type SseEvent } from './support/sse.js';

const CONFIGURATION = `
environments:
  - { name: laptop, kind: daemon, daemon: dev-box, cwd: /tmp/work }
triggers:
  - name: fix-tests
    on: { manual.run: {} }
    max_runtime: 2h
    filters: { from_users: [dev-lead] }
    steps:
      - { id: fix, environment: laptop, agent: { provider: claude }, prompt: [ { text: "Fix {{ prompt }}" } ] }
  - name: two-steps
    on: { manual.run: {} }
    max_runtime: 1h
    filters: { from_users: [dev-lead] }
    steps:
      - { id: first, environment: laptop, agent: { provider: claude }, prompt: [ { text: "one" } ] }
      - { id: second, environment: laptop, agent: { provider: claude }, prompt: [ { text: "two" } ] }
`;

let keys = 0;
const freshKey = () => `follow-${Date.now()}-${++keys}`;

/** Reads an SSE stream until it ends (or `until` says enough), parsing its events; comments are kept as event ':'. */
function readEvents(
  hub: Pick<RunningHub, 'url'>,
  path: string,
  token: string,
  options: { lastEventId?: string; until?: (events: SseEvent[]) => boolean } = {},
): Promise<{ status: number; type: string | undefined; events: SseEvent[] }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'text/event-stream' };
    if (options.lastEventId !== undefined) headers['last-event-id'] = options.lastEventId;
    const req = httpRequest(`${hub.url}${path}`, { headers }, (res) => {
      const events: SseEvent[] = [];
      let buffer = '';
      const done = () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], events });
      res.setEncoding('utf8');
      res.on('data', (text: string) => {
        const taken = takeEvents(buffer + text);
        buffer = taken.rest;
        events.push(...taken.events);
        if (options.until?.(events)) {
          req.destroy();
          done();
        }
      });
      res.on('end', done);
      res.on('error', () => done());
    });
    req.on('error', (error) => (options.until === undefined ? reject(error) : undefined));
    req.end();
  });
}

const outputs = (events: SseEvent[]) =>
  events
    .filter((event) => event.event === 'output')
    .map((event) => JSON.parse(event.data) as { seq: number; stream: string; text: string });
const chunk = (seq: number, text: string, stream = 'stdout') => ({ seq, stream, at: new Date().toISOString(), text });

describe.each(databases)('following runs on the %s database', (kind) => {
  let hub: Awaited<ReturnType<typeof hubOn>>;
  let ctx: Awaited<ReturnType<typeof setUp>>;
  let daemon: TestDaemon;

  beforeAll(async () => {
    hub = await hubOn(kind);
    ctx = await setUp(hub);
    daemon = (await TestDaemon.enroll(hub, ctx.key, 'dev-box')).keepAlive(300);
    await daemon.heartbeat();
    const installed = await call(hub, 'POST', '/api/v1/configurations/install', {
      token: ctx.key,
      body: { projectSlug: ctx.project, yaml: CONFIGURATION },
    });
    expect(installed.status, installed.text).toBe(201);
  }, 120_000);
  afterAll(async () => {
    daemon?.stop();
    await hub?.close();
  });

  const dispatch = async (trigger = 'fix-tests') => {
    const answer = await call(hub, 'POST', '/api/v1/manual-runs', {
      token: ctx.key,
      body: { projectSlug: ctx.project, trigger, actor: 'dev-lead', deliveryKey: freshKey() },
    });
    expect(answer.status, answer.text).toBe(200);
    return answer.body.triggerRunId as string;
  };
  const runOf = async (id: string) => (await call(hub, 'GET', `/api/v1/runs/${id}`, { token: ctx.key })).body;
  /** A dispatched run whose first execution the daemon took and started. */
  const started = async (trigger = 'fix-tests') => {
    const runId = await dispatch(trigger);
    const executionId = (await runOf(runId)).executions[0].executionId as string;
    for (let attempt = 0; attempt < 5; attempt++) {
      const next = await daemon.next(5);
      if (next.status === 200 && next.body.assignment?.executionId === executionId) break;
    }
    expect((await daemon.report(executionId, 'running')).status).toBe(200);
    return { runId, executionId };
  };
  const send = (executionId: string, chunks: unknown[]) =>
    daemon.signed('POST', `/api/v1/daemon/executions/${executionId}/output`, { chunks });

  it('stores output once and in order however often a batch is sent, and serves it as text', async () => {
    const { runId, executionId } = await started();
    expect(await send(executionId, [chunk(0, 'one\n'), chunk(1, 'two\n', 'stderr')])).toMatchObject({
      status: 200,
      body: { executionId, nextSeq: 2 },
    });
    // A retry of the first batch with the next one: nothing twice.
    expect(
      await send(executionId, [chunk(0, 'one\n'), chunk(1, 'two\n', 'stderr'), chunk(2, 'three\n')]),
    ).toMatchObject({ status: 200, body: { nextSeq: 3 } });
    expect(await send(executionId, [chunk(1, 'two\n', 'stderr')])).toMatchObject({ status: 200, body: { nextSeq: 3 } });
    for (const path of [
      `/api/v1/runs/${runId}/executions/${executionId}/output`,
      `/api/v1/executions/${executionId}/output`,
    ]) {
      const text = await call(hub, 'GET', path, { token: ctx.key });
      expect([text.status, text.headers.get('content-type'), text.text]).toEqual([
        200,
        'text/plain; charset=utf-8',
        'one\ntwo\nthree\n',
      ]);
    }
    const other = await TestDaemon.enroll(hub, ctx.key, 'other-box');
    expect(
      (await other.signed('POST', `/api/v1/daemon/executions/${executionId}/output`, { chunks: [chunk(3, 'x')] }))
        .status,
    ).toBe(404);
    expect((await send(executionId, [{ ...chunk(3, 'x'), seq: -1 }])).status).toBe(400);
    expect(
      (await call(hub, 'GET', `/api/v1/runs/${await dispatch()}/executions/${executionId}/output`, { token: ctx.key }))
        .status,
    ).toBe(404);
    await daemon.report(executionId, 'succeeded', { exitCode: 0 });
  });

  it('streams output as SSE, resumes after Last-Event-ID, and ends with the final status', async () => {
    const { runId, executionId } = await started();
    const path = `/api/v1/runs/${runId}/executions/${executionId}/output`;
    await send(executionId, [chunk(0, 'a\n'), chunk(1, 'b\n')]);
    const live = readEvents(hub, path, ctx.key);
    await send(executionId, [chunk(2, 'c\n', 'stderr')]);
    await send(executionId, [chunk(3, 'd\n')]);
    await daemon.report(executionId, 'failed', { exitCode: 3, message: 'sh exited with code 3.' });
    const { status, type, events } = await live;
    expect([status, type]).toEqual([200, 'text/event-stream; charset=utf-8']);
    expect(outputs(events).map((event) => [event.seq, event.stream, event.text])).toEqual([
      [0, 'stdout', 'a\n'],
      [1, 'stdout', 'b\n'],
      [2, 'stderr', 'c\n'],
      [3, 'stdout', 'd\n'],
    ]);
    expect(events.filter((event) => event.event === 'output').map((event) => event.id)).toEqual(['0', '1', '2', '3']);
    const end = events.at(-1);
    expect(end?.event).toBe('end');
    expect(JSON.parse(end?.data ?? '{}')).toEqual({
      executionId,
      status: 'failed',
      exitCode: 3,
      message: 'sh exited with code 3.',
    });
    const resumed = await readEvents(hub, `/api/v1/executions/${executionId}/output`, ctx.key, { lastEventId: '1' });
    expect(outputs(resumed.events).map((event) => event.seq)).toEqual([2, 3]);
    expect(resumed.events.at(-1)?.event).toBe('end');
  });

  it('keeps the first and the last 5 MiB of an execution, and says where it cut', async () => {
    const { executionId } = await started();
    const line = `${'x'.repeat(1023)}\n`;
    // 12 MiB in 48 requests of 256 KiB (16 chunks of 16 KiB): a batch's body is at most 1 MiB.
    let seq = 0;
    for (let request = 0; request < 48; request++) {
      const chunks = Array.from({ length: 16 }, () =>
        chunk(seq++, `${String(seq).padStart(8, '0')}:${line.repeat(16).slice(9)}`),
      );
      expect((await send(executionId, chunks)).status).toBe(200);
    }
    const text = (await call(hub, 'GET', `/api/v1/executions/${executionId}/output`, { token: ctx.key })).text;
    const [head, tail] = text.split(
      /\n\[… \d+ bytes of output cut here: the hub keeps the first and the last 5 MiB …\]\n/,
    );
    expect(head?.length).toBe(5 * 1024 * 1024);
    expect(tail?.length).toBe(5 * 1024 * 1024);
    expect(head?.startsWith('00000001:')).toBe(true);
    expect(tail?.endsWith(line)).toBe(true);
    expect(tail?.slice(-16 * 1024, -16 * 1024 + 9)).toBe(`${String(seq).padStart(8, '0')}:`);
    const events = (
      await readEvents(hub, `/api/v1/executions/${executionId}/output`, ctx.key, {
        lastEventId: '319',
        until: (all) => outputs(all).length > 0,
      })
    ).events;
    expect(events[0]).toMatchObject({ event: 'cut', data: JSON.stringify({ bytes: 2 * 1024 * 1024 }) });
    await daemon.report(executionId, 'succeeded', { exitCode: 0 });
  }, 60_000);

  it('cancels a running run through its daemon: the long-poll tells it, its report ends the run; a finished run is 409', async () => {
    const { runId, executionId } = await started('two-steps');
    const cancelled = await call(hub, 'POST', `/api/v1/runs/${runId}/cancel`, { token: ctx.key, body: {} });
    expect(cancelled.status, cancelled.text).toBe(202);
    expect(cancelled.body).toMatchObject({
      triggerRunId: runId,
      status: 'running',
      cancelRequestedAt: expect.any(String),
    });
    // The daemon at its limit polls for cancellations only; it hears this one at once.
    const heard = await daemon.signed('GET', '/api/v1/daemon/assignments/next?wait=5&capacity=0');
    expect(heard).toMatchObject({ status: 200, body: { cancel: [executionId] } });
    // Not again right away (again after 10 s if the daemon does not act).
    expect((await daemon.signed('GET', '/api/v1/daemon/assignments/next?wait=0&capacity=0')).status).toBe(204);
    expect((await daemon.report(executionId, 'cancelled', { message: 'Cancelled.' })).status).toBe(200);
    const run = await runOf(runId);
    expect(run).toMatchObject({
      status: 'cancelled',
      executions: [expect.objectContaining({ stepId: 'first', status: 'cancelled' })],
    });
    const again = await call(hub, 'POST', `/api/v1/runs/${runId}/cancel`, { token: ctx.key });
    expect(again).toMatchObject({ status: 409, body: { code: 'run_finished', runStatus: 'cancelled' } });
    const [event] =
      await hub.sql`select actor_kind, api_key_id, subject from audit_events where kind = 'run.cancelled' and subject->>'runId' = ${runId}`;
    expect(event).toMatchObject({
      actor_kind: 'key',
      api_key_id: ctx.keyId,
      subject: { trigger: 'two-steps', projectSlug: ctx.project },
    });
  });

  it('cancels at once a run whose daemon has not taken its step, and one it was offered but never started', async () => {
    const waiting = await dispatch();
    expect((await call(hub, 'POST', `/api/v1/runs/${waiting}/cancel`, { token: ctx.key })).status).toBe(202);
    expect(await runOf(waiting)).toMatchObject({
      status: 'cancelled',
      executions: [expect.objectContaining({ status: 'cancelled' })],
    });
    const offered = await dispatch();
    const executionId = (await runOf(offered)).executions[0].executionId;
    expect((await daemon.next(5)).body.assignment.executionId).toBe(executionId);
    expect((await call(hub, 'POST', `/api/v1/runs/${offered}/cancel`, { token: ctx.key })).status).toBe(202);
    expect((await daemon.next(5)).body).toEqual({ cancel: [executionId] });
    expect(await runOf(offered)).toMatchObject({
      status: 'cancelled',
      executions: [expect.objectContaining({ status: 'cancelled' })],
    });
  });

  it('lists runs newest first by cursor pages, with filters; a forged or foreign cursor is 400', async () => {
    const mine = [await dispatch(), await dispatch(), await dispatch()];
    for (const id of mine) await call(hub, 'POST', `/api/v1/runs/${id}/cancel`, { token: ctx.key });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await call(hub, 'GET', `/api/v1/runs?limit=2${cursor === null ? '' : `&cursor=${cursor}`}`, {
        token: ctx.key,
      });
      expect(page.status, page.text).toBe(200);
      expect(page.body.runs.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.runs.map((run: { triggerRunId: string }) => run.triggerRunId));
      cursor = page.body.nextCursor;
      // A run dispatched between pages does not shift the next page.
      if (seen.length === 2) await dispatch();
    } while (cursor !== null);
    expect(seen.slice(0, 3)).toEqual([...mine].reverse());
    expect(new Set(seen).size).toBe(seen.length);
    const filtered = await call(
      hub,
      'GET',
      `/api/v1/runs?project=${ctx.project}&trigger=fix-tests&status=cancelled&limit=200`,
      { token: ctx.key },
    );
    expect(
      filtered.body.runs.every(
        (run: { status: string; trigger: string }) => run.status === 'cancelled' && run.trigger === 'fix-tests',
      ),
    ).toBe(true);
    expect(filtered.body.runs.map((run: { triggerRunId: string }) => run.triggerRunId)).toEqual(
      expect.arrayContaining(mine),
    );
    expect((await call(hub, 'GET', '/api/v1/runs?status=bogus', { token: ctx.key })).status).toBe(400);
    for (const forged of ['not-a-cursor', 'AAAAAAAAAAAAAAAAAAAAAA']) {
      expect((await call(hub, 'GET', `/api/v1/runs?cursor=${forged}`, { token: ctx.key })).status).toBe(400);
    }
    const other = await setUp(hub);
    const page = await call(hub, 'GET', '/api/v1/runs?limit=1', { token: ctx.key });
    const foreign = await call(hub, 'GET', `/api/v1/runs?cursor=${page.body.nextCursor}`, { token: other.key });
    expect(foreign.status).toBe(400);
    const unscoped = await setUp(hub, { scopes: ['projects:read'] });
    expect((await call(hub, 'GET', '/api/v1/runs', { token: unscoped.key })).body.requiredScope).toBe('runs:read');
    expect(
      (await call(hub, 'POST', `/api/v1/runs/${mine[0]}/cancel`, { token: unscoped.key })).body.requiredScope,
    ).toBe('runs:dispatch');
  });

  it('leads from an execution (what shape A answers) to its run', async () => {
    const answer = await call(hub, 'POST', '/api/manual-runs', {
      token: ctx.key,
      body: { projectSlug: ctx.project, trigger: 'fix-tests', actor: 'dev-lead', deliveryKey: freshKey() },
    });
    const view = await call(hub, 'GET', `/api/v1/executions/${answer.body.executionId}`, { token: ctx.key });
    expect(view.status, view.text).toBe(200);
    expect(view.body).toMatchObject({
      runId: expect.any(String),
      execution: { executionId: answer.body.executionId, stepId: 'fix', status: 'spawning', daemon: 'dev-box' },
    });
    expect((await runOf(view.body.runId)).executions[0].executionId).toBe(answer.body.executionId);
    const other = await setUp(hub);
    expect((await call(hub, 'GET', `/api/v1/executions/${answer.body.executionId}`, { token: other.key })).status).toBe(
      404,
    );
    await call(hub, 'POST', `/api/v1/runs/${view.body.runId}/cancel`, { token: ctx.key });
  });

  it('takes a daemon that says it stops offline at once, until it is heard from again', async () => {
    const stopping = await TestDaemon.enroll(hub, ctx.key, 'dev-box', undefined, { replace: true });
    daemon.stop();
    await stopping.heartbeat();
    expect((await stopping.signed('POST', '/api/v1/daemon/offline', {})).status).toBe(204);
    const refused = await call(hub, 'POST', '/api/v1/manual-runs', {
      token: ctx.key,
      body: { projectSlug: ctx.project, trigger: 'fix-tests', actor: 'dev-lead', deliveryKey: freshKey() },
    });
    expect([refused.status, refused.body.code]).toEqual([409, 'daemon_offline']);
    await stopping.heartbeat();
    expect(
      (
        await call(hub, 'POST', '/api/v1/manual-runs', {
          token: ctx.key,
          body: { projectSlug: ctx.project, trigger: 'fix-tests', actor: 'dev-lead', deliveryKey: freshKey() },
        })
      ).status,
    ).toBe(200);
    daemon = stopping.keepAlive(300);
  });
});

describe('following output from another hub instance', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let one: RunningHub;
  let two: RunningHub;
  let ctx: Awaited<ReturnType<typeof setUp>>;
  let daemon: TestDaemon;

  beforeAll(async () => {
    database = await freshDatabase();
    [one, two] = await Promise.all([startHub({ databaseUrl: database.url }), startHub({ databaseUrl: database.url })]);
    ctx = await setUp(one);
    daemon = (await TestDaemon.enroll(one, ctx.key, 'dev-box')).keepAlive(300);
    await daemon.heartbeat();
    expect(
      (
        await call(one, 'POST', '/api/v1/configurations/install', {
          token: ctx.key,
          body: { projectSlug: ctx.project, yaml: CONFIGURATION },
        })
      ).status,
    ).toBe(201);
  }, 120_000);
  afterAll(async () => {
    daemon?.stop();
    await Promise.all([one?.stop(), two?.stop()]);
    await database?.drop();
  });

  it('gets every line exactly once and in order, live, while the daemon sends to the other instance', async () => {
    const dispatched = await call(one, 'POST', '/api/v1/manual-runs', {
      token: ctx.key,
      body: { projectSlug: ctx.project, trigger: 'fix-tests', actor: 'dev-lead', deliveryKey: freshKey() },
    });
    const executionId = (await call(one, 'GET', `/api/v1/runs/${dispatched.body.triggerRunId}`, { token: ctx.key }))
      .body.executions[0].executionId;
    expect((await daemon.next(5)).body.assignment.executionId).toBe(executionId);
    await daemon.report(executionId, 'running');
    const reading = readEvents(two, `/api/v1/executions/${executionId}/output`, ctx.key);
    for (let line = 0; line < 40; line++) {
      expect(
        (
          await daemon.signed('POST', `/api/v1/daemon/executions/${executionId}/output`, {
            chunks: [chunk(line, `line ${line + 1}\n`)],
          })
        ).status,
      ).toBe(200);
    }
    await daemon.report(executionId, 'succeeded', { exitCode: 0 });
    const { events } = await reading;
    expect(outputs(events).map((event) => event.text)).toEqual(
      Array.from({ length: 40 }, (_, line) => `line ${line + 1}\n`),
    );
    expect(events.at(-1)?.event).toBe('end');
  });
});
