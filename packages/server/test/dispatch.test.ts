import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, setUp } from './support/client.js';
import { TestDaemon } from './support/daemon.js';
import { databases, freshDatabase, hubOn, startHub, type RunningHub } from './support/hub.js';

/** Short clocks, so that offline, redelivery and timeouts happen within a test. */
const TIMING = {
  HUB_DAEMON_OFFLINE_AFTER_MS: '4000',
  HUB_REDELIVER_AFTER_MS: '1500',
  HUB_TIMEOUT_GRACE_MS: '500',
  HUB_SWEEP_EVERY_MS: '200',
};

const CONFIGURATION = `
environments:
  - { name: laptop, kind: daemon, daemon: dev-box, cwd: /tmp/work }
  - { name: other, kind: daemon, daemon: second-box, cwd: /srv/other }
  - { name: nowhere, kind: daemon, daemon: never-seen, cwd: /tmp }
triggers:
  - name: fix-tests
    on:
      manual.run:
        inputs:
          branch: { description: Branch, required: false, default: main }
          level: { description: Level, required: false, default: low, enum: [low, high] }
          ticket: { description: Ticket, required: false }
    max_runtime: 2h
    filters: { from_users: [dev-lead, ci-bot] }
    steps:
      - id: fix
        environment: laptop
        idle_timeout: 10m
        agent: { provider: claude, mode: edit }
        prompt:
          - text: "Fix {{ inputs.branch }} at {{ inputs.level }}. {{ prompt }}"
  - name: two-steps
    on: { manual.run: {} }
    max_runtime: 1h
    filters: { from_users: [x, anyone, dev-lead] }
    steps:
      - { id: first, environment: laptop, agent: { provider: claude }, prompt: [ { text: "one {{ prompt }}" } ] }
      - { id: second, environment: other, agent: { provider: codex }, prompt: [ { text: "two {{ prompt }}" } ] }
  - name: needs-ticket
    on: { manual.run: { inputs: { ticket: { description: Ticket, required: true } } } }
    max_runtime: 1h
    filters: { from_users: [x, anyone, dev-lead] }
    steps:
      - { id: go, environment: laptop, agent: { provider: claude }, prompt: [ { text: "{{ inputs.ticket }}" } ] }
  - name: switched-off
    enabled: false
    on: { manual.run: {} }
    max_runtime: 1h
    filters: { from_users: [x, anyone, dev-lead] }
    steps:
      - { id: go, environment: laptop, agent: { provider: claude }, prompt: [ { text: go } ] }
  - name: quick
    on: { manual.run: {} }
    max_runtime: 1s
    filters: { from_users: [x] }
    steps:
      - { id: go, environment: laptop, agent: { provider: claude }, prompt: [ { text: go } ] }
  - name: far-away
    on: { manual.run: {} }
    max_runtime: 1h
    filters: { from_users: [x, anyone, dev-lead] }
    steps:
      - { id: go, environment: nowhere, agent: { provider: claude }, prompt: [ { text: go } ] }
`;

const ORG_TRIGGER = `
name: nightly-triage
on:
  manual.run: {}
filters:
  from_users: [ci-bot]
run:
  target: { daemon: dev-box, cwd: /srv/repo }
  agent:
    provider: codex
    prompt: "Triage. {{ prompt }}"
    max_runtime: 30m
`;

let keys = 0;
const freshKey = () => `delivery-${Date.now()}-${++keys}`;

describe.each(databases)('dispatch on the %s database', (kind) => {
  let hub: Awaited<ReturnType<typeof hubOn>>;
  let ctx: Awaited<ReturnType<typeof setUp>>;
  let devBox: TestDaemon;
  let secondBox: TestDaemon;
  let versionId: string;

  beforeAll(async () => {
    hub = await hubOn(kind, TIMING);
    ctx = await setUp(hub);
    devBox = (await TestDaemon.enroll(hub, ctx.key, 'dev-box')).keepAlive(300);
    secondBox = (await TestDaemon.enroll(hub, ctx.key, 'second-box')).keepAlive(300);
    await TestDaemon.enroll(hub, ctx.key, 'never-seen');
    await devBox.heartbeat();
    await secondBox.heartbeat();
    const installed = await call(hub, 'POST', '/api/v1/configurations/install', {
      token: ctx.key,
      body: { projectSlug: ctx.project, yaml: CONFIGURATION },
    });
    expect(installed.status, installed.text).toBe(201);
    versionId = installed.body.versionId;
    const trigger = await call(hub, 'POST', '/api/v1/triggers/install', {
      token: ctx.key,
      body: { yaml: ORG_TRIGGER },
    });
    expect(trigger.status, trigger.text).toBe(201);
  }, 120_000);
  afterAll(async () => {
    devBox?.stop();
    secondBox?.stop();
    await hub?.close();
  });

  const dispatch = (shape: 'A' | 'B', body: Record<string, unknown>, token = ctx.key) =>
    call(hub, 'POST', shape === 'A' ? '/api/manual-runs' : '/api/v1/manual-runs', { token, body });
  const request = (overrides: Record<string, unknown> = {}) => ({
    projectSlug: ctx.project,
    trigger: 'fix-tests',
    actor: 'dev-lead',
    deliveryKey: freshKey(),
    ...overrides,
  });
  /** Takes assignments until the one for `executionId` comes. */
  const assignmentFor = async (daemon: TestDaemon, executionId: string) => {
    for (let attempt = 0; attempt < 5; attempt++) {
      const next = await daemon.next(5);
      if (next.status === 200 && next.body.assignment.executionId === executionId) return next.body.assignment;
    }
    throw new Error(`no assignment ${executionId} for ${daemon.name}`);
  };
  const runOf = async (triggerRunId: string) => {
    const answer = await call(hub, 'GET', `/api/v1/runs/${triggerRunId}`, { token: ctx.key });
    if (answer.status !== 200) throw new Error(`GET run: ${answer.status} ${answer.text}`);
    return answer.body;
  };
  const eventually = async <T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 20_000): Promise<T> => {
    const until = Date.now() + ms;
    for (;;) {
      const value = await read();
      if (done(value) || Date.now() > until) return value;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  it('A: dispatches a run whose rendered prompt and inputs reach the daemon, and which ends succeeded', async () => {
    const answer = await dispatch(
      'A',
      request({ input: 'branch=feature level=high please hurry ', expectedVersionId: versionId }),
    );
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({
      deliveryKey: expect.any(String),
      triggerId: expect.any(String),
      executionId: expect.any(String),
      status: 'spawning',
      daemonId: devBox.id,
      agentId: 'claude',
    });
    expect(answer.headers.get('idempotent-replayed')).toBeNull();
    const assignment = await assignmentFor(devBox, answer.body.executionId);
    expect(assignment).toEqual({
      executionId: answer.body.executionId,
      triggerRunId: expect.any(String),
      stepId: 'fix',
      cwd: '/tmp/work',
      agent: { provider: 'claude', mode: 'edit' },
      prompt: 'Fix feature at high. please hurry',
      inputs: { branch: 'feature', level: 'high' },
      actor: 'dev-lead',
      maxRuntimeMs: 7_200_000,
      idleTimeoutMs: 600_000,
    });
    expect((await runOf(assignment.triggerRunId)).status).toBe('running');
    expect(await devBox.report(assignment.executionId, 'running')).toMatchObject({
      status: 200,
      body: { status: 'running' },
    });
    expect(await devBox.report(assignment.executionId, 'succeeded', { exitCode: 0 })).toMatchObject({ status: 200 });
    const run = await runOf(assignment.triggerRunId);
    expect(run).toMatchObject({
      triggerRunId: assignment.triggerRunId,
      projectSlug: ctx.project,
      trigger: 'fix-tests',
      actor: 'dev-lead',
      status: 'succeeded',
    });
    expect(run.executions).toEqual([
      expect.objectContaining({
        executionId: assignment.executionId,
        stepId: 'fix',
        daemon: 'dev-box',
        status: 'succeeded',
        exitCode: 0,
      }),
    ]);
    // The stable triggerId of A: the same for the next run of the trigger.
    const again = await dispatch('A', request());
    expect(again.body.triggerId).toBe(answer.body.triggerId);
    await devBox.report(again.body.executionId, 'cancelled');
  });

  it('B: dispatches with the receipt, run id and trigger name; an organization trigger when the configuration lacks it', async () => {
    const answer = await dispatch('B', request({ trigger: 'nightly-triage', actor: 'ci-bot', input: 'look at #12' }));
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({
      deliveryKey: expect.any(String),
      providerEventReceiptId: expect.any(String),
      triggerRunId: expect.any(String),
      configuredTriggerName: 'nightly-triage',
      workflowStatus: 'running',
    });
    const run = await runOf(answer.body.triggerRunId);
    const assignment = await assignmentFor(devBox, run.executions[0].executionId);
    expect(assignment).toMatchObject({
      cwd: '/srv/repo',
      agent: { provider: 'codex' },
      prompt: 'Triage. look at #12',
      actor: 'ci-bot',
      maxRuntimeMs: 1_800_000,
    });
    await devBox.report(assignment.executionId, 'failed', { exitCode: 3, message: 'agent exited 3' });
    expect(await runOf(answer.body.triggerRunId)).toMatchObject({
      status: 'failed',
      executions: [expect.objectContaining({ status: 'failed', exitCode: 3 })],
    });
  });

  it('answers a repeated delivery key with the first identifiers, in either shape, and refuses it for another request', async () => {
    const body = request({ input: 'branch=dedup' });
    const first = await dispatch('A', body);
    const again = await dispatch('A', body);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const asB = await dispatch('B', body);
    expect(asB.status).toBe(200);
    expect(asB.headers.get('idempotent-replayed')).toBe('true');
    const run = await runOf(asB.body.triggerRunId);
    expect(run.executions[0].executionId).toBe(first.body.executionId);
    const other = await dispatch('B', { ...body, input: 'branch=other' });
    expect(other).toMatchObject({ status: 409, body: { code: 'delivery_key_reused' } });
    expect((await dispatch('A', { ...body, actor: 'ci-bot' })).body).toMatchObject({ code: 'delivery_key_reused' });
    await devBox.report(first.body.executionId, 'cancelled');
  });

  it("A's 400 and actor 403 are the specification's bodies; B's are problems", async () => {
    const missing = await dispatch('A', { projectSlug: ctx.project, trigger: 'fix-tests', actor: 'dev-lead' });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: 'invalid_request' });
    expect(missing.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect((await dispatch('A', request({ deliveryKey: '' }))).body).toEqual({ error: 'invalid_request' });
    expect((await dispatch('A', request({ extra: 1 }))).body).toEqual({ error: 'invalid_request' });
    expect((await dispatch('A', request({ expectedVersionId: 'not-a-uuid' }))).body).toEqual({
      error: 'invalid_request',
    });
    const actor = await dispatch('A', request({ actor: 'mallory' }));
    expect(actor.status).toBe(403);
    expect(actor.body).toEqual({ error: 'actor_forbidden' });
    const missingB = await dispatch('B', { projectSlug: ctx.project, trigger: 'fix-tests', actor: 'dev-lead' });
    expect(missingB).toMatchObject({
      status: 400,
      body: {
        code: 'invalid_request',
        issues: [expect.objectContaining({ pointer: '/deliveryKey', code: 'request.required' })],
      },
    });
    // B's problem names who may dispatch, in the configuration's order (hub run says so).
    expect(await dispatch('B', request({ actor: 'mallory' }))).toMatchObject({
      status: 403,
      body: { code: 'actor_forbidden', allowedActors: ['dev-lead', 'ci-bot'] },
    });
    const unauthorizedA = await dispatch('A', request(), 'hub_pk_nope');
    expect(unauthorizedA).toMatchObject({ status: 401, body: { code: 'unauthorized', title: 'Unauthorized' } });
    expect((await dispatch('B', request(), 'hub_pk_nope')).body).toMatchObject({
      code: 'unauthorized',
      title: 'Authentication required',
    });
    // The body is read before the key check (to look the trigger up in the same statement), but
    // a bad key is still a 401 and a missing scope a 403 before a broken body is a 400.
    const broken = { raw: '{"projectSlug":', contentType: 'application/json' };
    expect(await call(hub, 'POST', '/api/v1/manual-runs', { token: 'hub_pk_nope', ...broken })).toMatchObject({
      status: 401,
    });
    expect(await call(hub, 'POST', '/api/manual-runs', { token: ctx.key, ...broken })).toMatchObject({
      status: 400,
      body: { error: 'invalid_request' },
    });
    expect(
      await call(hub, 'POST', '/api/v1/manual-runs', { token: ctx.key, raw: 'x', contentType: 'text/plain' }),
    ).toMatchObject({ status: 415 });
    const readOnly = await setUp(hub, { scopes: ['projects:read'] });
    expect(await call(hub, 'POST', '/api/v1/manual-runs', { token: readOnly.key, ...broken })).toMatchObject({
      status: 403,
      body: { code: 'insufficient_scope' },
    });
    expect(await dispatch('A', request({ projectSlug: readOnly.project }), readOnly.key)).toMatchObject({
      status: 403,
      body: { code: 'insufficient_scope', requiredScope: 'runs:dispatch' },
    });
  });

  it('refuses unknown projects and triggers (404), disabled triggers, stale versions and offline daemons (409)', async () => {
    expect(await dispatch('B', request({ projectSlug: 'nope' }))).toMatchObject({
      status: 404,
      body: { code: 'project_not_found' },
    });
    expect(await dispatch('A', request({ trigger: 'nope' }))).toMatchObject({
      status: 404,
      body: { code: 'trigger_not_found' },
    });
    // A misspelled name gets the closest manual.run trigger; one far from every name gets none.
    const typo = await dispatch('B', request({ trigger: 'fix-test' }));
    expect(typo).toMatchObject({ status: 404, body: { code: 'trigger_not_found' } });
    expect((typo.body as { detail: string }).detail).toMatch(
      /manual\.run trigger "fix-test"; did you mean "fix-tests"\?$/,
    );
    expect((await dispatch('B', request({ trigger: 'nope' }))).body).toMatchObject({
      detail: expect.stringMatching(/"nope"\.$/),
    });
    expect(await dispatch('B', request({ trigger: 'switched-off' }))).toMatchObject({
      status: 409,
      body: { code: 'trigger_disabled' },
    });
    const stale = await dispatch('B', request({ expectedVersionId: '00000000-0000-4000-8000-000000000000' }));
    expect(stale).toMatchObject({ status: 409, body: { code: 'version_not_current', activeVersionId: versionId } });
    expect(await dispatch('A', request({ trigger: 'far-away' }))).toMatchObject({
      status: 409,
      body: { code: 'daemon_offline' },
    });
    // Another organization's project is not found either.
    const other = await setUp(hub);
    expect(
      await dispatch('B', request({ projectSlug: other.project === ctx.project ? 'app' : other.project }), other.key),
    ).toMatchObject({ status: 404 });
  });

  it('parses input into declared inputs: a missing required input or a value outside its enum is 400', async () => {
    const missing = await dispatch('B', request({ trigger: 'needs-ticket', input: 'no ticket here' }));
    expect(missing).toMatchObject({
      status: 400,
      body: { code: 'invalid_request', issues: [expect.objectContaining({ code: 'input.required' })] },
    });
    const outside = await dispatch('B', request({ input: 'level=extreme fix it' }));
    expect(outside).toMatchObject({
      status: 400,
      body: { issues: [expect.objectContaining({ code: 'input.not_in_enum' })] },
    });
    expect((await dispatch('A', request({ trigger: 'needs-ticket' }))).body).toEqual({ error: 'invalid_request' });
    const quoted = await dispatch('A', request({ trigger: 'needs-ticket', input: 'ticket="ABC 1" rest' }));
    expect(quoted.status).toBe(200);
    expect((await assignmentFor(devBox, quoted.body.executionId)).prompt).toBe('ABC 1');
    await devBox.report(quoted.body.executionId, 'cancelled');
  });

  it('runs steps in order, each on its own daemon, and a failed step ends the run', async () => {
    const answer = await dispatch('B', request({ trigger: 'two-steps', actor: 'anyone', input: 'go' }));
    expect(answer.status, answer.text).toBe(200);
    const run = await runOf(answer.body.triggerRunId);
    const first = await assignmentFor(devBox, run.executions[0].executionId);
    expect(first).toMatchObject({ stepId: 'first', prompt: 'one go' });
    expect((await secondBox.next(0)).status).toBe(204);
    await devBox.report(first.executionId, 'running');
    await devBox.report(first.executionId, 'succeeded', { exitCode: 0 });
    const second = await secondBox.next(5);
    expect(second.body.assignment).toMatchObject({
      stepId: 'second',
      prompt: 'two go',
      cwd: '/srv/other',
      agent: { provider: 'codex' },
    });
    await secondBox.report(second.body.assignment.executionId, 'running');
    await secondBox.report(second.body.assignment.executionId, 'failed', { exitCode: 1 });
    const ended = await runOf(answer.body.triggerRunId);
    expect(ended.status).toBe('failed');
    expect(ended.executions.map((execution: { status: string }) => execution.status)).toEqual(['succeeded', 'failed']);
    // A finished execution's status no longer changes; another daemon's execution is not found.
    expect(await secondBox.report(second.body.assignment.executionId, 'succeeded')).toMatchObject({
      status: 409,
      body: { code: 'execution_finished' },
    });
    expect(await devBox.report(second.body.assignment.executionId, 'running')).toMatchObject({
      status: 404,
      body: { code: 'execution_not_found' },
    });
    expect(await devBox.report(first.executionId, 'bogus')).toMatchObject({ status: 400 });
  });

  it('offers an assignment again when it is not marked running in time', async () => {
    const answer = await dispatch('A', request({ trigger: 'two-steps', actor: 'x' }));
    const offered = await assignmentFor(devBox, answer.body.executionId);
    expect((await devBox.next(0)).status).toBe(204);
    const again = await devBox.next(5);
    expect(again.status).toBe(200);
    expect(again.body.assignment.executionId).toBe(offered.executionId);
    await devBox.report(offered.executionId, 'running');
    await devBox.report(offered.executionId, 'cancelled');
    expect((await runOf(offered.triggerRunId)).status).toBe('cancelled');
  });

  it('marks an execution whose daemon goes offline lost, and one past its max_runtime timed_out', async () => {
    const flaky = (await TestDaemon.enroll(hub, ctx.key, 'flaky-box')).keepAlive(300);
    await flaky.heartbeat();
    const config = CONFIGURATION.replace('daemon: second-box', 'daemon: flaky-box');
    const project = `lost-${kind}`;
    await call(hub, 'POST', `/api/admin/v1/organizations/${ctx.org}/projects`, {
      token: hub.adminToken,
      body: { slug: project, name: project },
    });
    expect(
      (
        await call(hub, 'POST', '/api/v1/configurations/install', {
          token: ctx.key,
          body: { projectSlug: project, yaml: config },
        })
      ).status,
    ).toBe(201);
    const answer = await dispatch('A', request({ projectSlug: project, trigger: 'two-steps', actor: 'x' }));
    const first = await assignmentFor(devBox, answer.body.executionId);
    await devBox.report(first.executionId, 'running');
    await devBox.report(first.executionId, 'succeeded');
    const second = (await flaky.next(5)).body.assignment;
    await flaky.report(second.executionId, 'running');
    flaky.stop();
    const lost = await eventually(
      () => runOf(first.triggerRunId),
      (run) => run.status !== 'running',
    );
    expect(lost.status).toBe('failed');
    expect(lost.executions[1]).toMatchObject({ status: 'lost', daemon: 'flaky-box' });

    const quick = await dispatch('B', request({ trigger: 'quick', actor: 'x' }));
    const run = await runOf(quick.body.triggerRunId);
    await assignmentFor(devBox, run.executions[0].executionId);
    await devBox.report(run.executions[0].executionId, 'running');
    const timedOut = await eventually(
      () => runOf(quick.body.triggerRunId),
      (value) => value.status !== 'running',
    );
    expect(timedOut).toMatchObject({
      status: 'timed_out',
      executions: [expect.objectContaining({ status: 'timed_out' })],
    });
    expect(await devBox.report(run.executions[0].executionId, 'succeeded')).toMatchObject({ status: 409 });
  });

  it('refuses signed requests with a bad signature, a stale timestamp, a replayed nonce, or from a retired daemon', async () => {
    const path = '/api/v1/daemon/heartbeat';
    expect((await devBox.signed('POST', path, {})).status).toBe(200);
    const refused = async (answer: Promise<{ status: number; body: { code?: string } }>) =>
      expect(await answer).toMatchObject({ status: 401, body: { code: 'unauthorized' } });
    await refused(devBox.signed('POST', path, {}, { signedBody: '{"runtimes":[]}' }));
    await refused(devBox.signed('POST', path, {}, { signature: 'A'.repeat(86) }));
    await refused(devBox.signed('POST', path, {}, { timestamp: String(Date.now() - 61_000) }));
    await refused(devBox.signed('POST', path, {}, { timestamp: String(Date.now() + 61_000) }));
    await refused(call(hub, 'POST', path, { body: {} }));
    const nonce = 'n'.repeat(32);
    expect((await devBox.signed('POST', path, {}, { nonce })).status).toBe(200);
    await refused(devBox.signed('POST', path, {}, { nonce }));
    // Signed as another daemon: the signature does not match that daemon's key.
    await refused(devBox.signed('POST', path, {}, { daemonId: secondBox.id }));
    const retiring = await TestDaemon.enroll(hub, ctx.key, 'retiring-box');
    expect((await retiring.heartbeat()).status).toBe(200);
    await TestDaemon.enroll(hub, ctx.key, 'retiring-box', undefined, { replace: true });
    await refused(retiring.heartbeat());
  });

  it('answers a long-poll with 204 after its wait, and a bad wait with 400', async () => {
    const idle = await TestDaemon.enroll(hub, ctx.key, 'idle-box');
    const started = Date.now();
    const waited = await idle.next(1);
    expect(waited.status, waited.text).toBe(204);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect((await idle.signed('GET', '/api/v1/daemon/assignments/next?wait=31')).status).toBe(400);
    expect((await idle.signed('GET', '/api/v1/daemon/assignments/next?wait=abc')).status).toBe(400);
  });
});

describe('two hub instances on one PostgreSQL', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let one: RunningHub;
  let two: RunningHub;
  let ctx: Awaited<ReturnType<typeof setUp>>;
  let daemon: TestDaemon;

  beforeAll(async () => {
    database = await freshDatabase();
    [one, two] = await Promise.all([
      startHub({ databaseUrl: database.url, env: TIMING }),
      startHub({ databaseUrl: database.url, env: TIMING }),
    ]);
    ctx = await setUp(one);
    daemon = (await TestDaemon.enroll(two, ctx.key, 'dev-box')).keepAlive(300);
    await daemon.heartbeat();
    expect(
      (
        await call(one, 'POST', '/api/v1/configurations/install', {
          token: ctx.key,
          body: {
            projectSlug: ctx.project,
            yaml: CONFIGURATION.replace(/daemon: (second-box|never-seen)/g, 'daemon: dev-box'),
          },
        })
      ).status,
    ).toBe(201);
  }, 120_000);
  afterAll(async () => {
    daemon?.stop();
    await Promise.all([one?.stop(), two?.stop()]);
    await database?.drop();
  });

  it('wakes a long-poll waiting on one instance when the other dispatches', async () => {
    const polling = daemon.next(20);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = Date.now();
    const answer = await call(one, 'POST', '/api/v1/manual-runs', {
      token: ctx.key,
      body: { projectSlug: ctx.project, trigger: 'two-steps', actor: 'x', deliveryKey: freshKey() },
    });
    expect(answer.status, answer.text).toBe(200);
    const assignment = await polling;
    expect(assignment.status).toBe(200);
    // Woken by NOTIFY: without it the poll would sleep until its 10 s presence refresh.
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(assignment.body.assignment.triggerRunId).toBe(answer.body.triggerRunId);
    await daemon.report(assignment.body.assignment.executionId, 'cancelled');
  });

  it('starts one run for 50 concurrent dispatches with one delivery key, spread over both, all answering alike', async () => {
    const body = { projectSlug: ctx.project, trigger: 'two-steps', actor: 'x', deliveryKey: freshKey(), input: 'once' };
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        call(index % 2 === 0 ? one : two, 'POST', index % 4 < 2 ? '/api/v1/manual-runs' : '/api/manual-runs', {
          token: ctx.key,
          body,
        }),
      ),
    );
    for (const answer of answers) expect(answer.status, answer.text).toBe(200);
    const b = answers.filter((_, index) => index % 4 < 2).map((answer) => answer.body);
    const a = answers.filter((_, index) => index % 4 >= 2).map((answer) => answer.body);
    expect(new Set(b.map((answer) => JSON.stringify(answer))).size).toBe(1);
    expect(new Set(a.map((answer) => JSON.stringify(answer))).size).toBe(1);
    expect(answers.filter((answer) => answer.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    const runs = await call(one, 'GET', `/api/v1/runs/${b[0].triggerRunId}`, { token: ctx.key });
    expect(runs.body.executions).toHaveLength(1);
    expect(runs.body.executions[0].executionId).toBe(a[0].executionId);
  });
});
