// The one-statement dispatch (dispatch/hinted.ts): each instance keeps what its dispatches learned
// (the key, the trigger of a revision) as hints, and one statement checks them all again. What
// changes on another instance between two dispatches (a new revision, a revoked key) must be
// honoured by the next one, refusals must come as the exact path gives them, and the hints are
// bounded.
import { randomBytes } from 'node:crypto';
import postgres, { type ReservedSql, type Sql } from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DispatchHints } from '../src/runs/dispatch/hints.js';
import { call, expectProblem, setUp, type Answer } from './support/client.js';
import { TestDaemon } from './support/daemon.js';
import { freshDatabase, startHub, type RunningHub } from './support/hub.js';

const configuration = (actors: string, text: string) => `
environments:
  - { name: laptop, kind: daemon, daemon: dev-box, cwd: /tmp/work }
triggers:
  - name: go
    on: { manual.run: { inputs: { level: { description: Level, required: false, default: low, enum: [low, high] } } } }
    max_runtime: 1h
    filters: { from_users: [${actors}] }
    steps:
      - { id: go, environment: laptop, agent: { provider: claude }, prompt: [ { text: "${text} {{ inputs.level }} {{ prompt }}" } ] }
`;

/**
 * The hinted statement's own text: the key is checked in it (the exact write only re-reads it by
 * id). Early in the statement: pg_stat_activity keeps only its first 1,024 bytes.
 */
const HINTED = 'organization_id is not distinct from';

describe('dispatch hints on two hub instances', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let sql: Sql;
  let one: RunningHub;
  let two: RunningHub;
  const daemons: TestDaemon[] = [];

  beforeAll(async () => {
    database = await freshDatabase();
    sql = postgres(database.url, { max: 2, onnotice: () => {} });
    [one, two] = await Promise.all([startHub({ databaseUrl: database.url }), startHub({ databaseUrl: database.url })]);
  }, 120_000);
  afterAll(async () => {
    for (const daemon of daemons) daemon.stop();
    await Promise.all([one?.stop(), two?.stop()]);
    await sql?.end();
    await database?.drop();
  });

  /** An organization with its daemon online and the configuration installed (through `two`). */
  async function organization(actors = 'dev-lead') {
    const ctx = await setUp(two);
    const daemon = (await TestDaemon.enroll(two, ctx.key, 'dev-box')).keepAlive(1000);
    daemons.push(daemon);
    expect((await daemon.heartbeat()).status).toBe(200);
    const installed = await call(two, 'POST', '/api/v1/configurations/install', {
      token: ctx.key,
      body: { projectSlug: ctx.project, yaml: configuration(actors, 'first') },
    });
    expect(installed.status, installed.text).toBe(201);
    return { ...ctx, daemon, versionId: installed.body.versionId as string };
  }

  const body = (ctx: { project: string }, overrides: Record<string, unknown> = {}) => ({
    projectSlug: ctx.project,
    trigger: 'go',
    actor: 'dev-lead',
    deliveryKey: `hinted-${randomBytes(6).toString('hex')}`,
    ...overrides,
  });
  const dispatch = (hub: RunningHub, ctx: { key: string }, request: Record<string, unknown>, shape: 'A' | 'B' = 'B') =>
    call(hub, 'POST', shape === 'A' ? '/api/manual-runs' : '/api/v1/manual-runs', { token: ctx.key, body: request });
  /** Two dispatches on `hub`: the first teaches it the key and the trigger, the second uses them. */
  const warm = async (hub: RunningHub, ctx: { key: string; project: string }) => {
    for (let round = 0; round < 2; round++) {
      const answer = await dispatch(hub, ctx, body(ctx));
      expect(answer.status, answer.text).toBe(200);
    }
  };
  const runOf = async (triggerRunId: string) => {
    const [run] =
      await sql`select configuration_revision_id as "revisionId", actor, plan from trigger_runs where id = ${triggerRunId}`;
    return run;
  };

  it('starts runs that the exact path would start, in both shapes, and answers their replays alike', async () => {
    const ctx = await organization();
    await warm(one, ctx);
    for (const shape of ['A', 'B'] as const) {
      const request = body(ctx, { input: 'level=high fix it' });
      const first = await dispatch(one, ctx, request, shape);
      expect(first.status, first.text).toBe(200);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const again = await dispatch(two, ctx, request, shape);
      expect(again.status, again.text).toBe(200);
      expect(again.body).toEqual(first.body);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expectProblem(
        await dispatch(one, ctx, { ...request, input: 'something else' }, shape),
        409,
        'delivery_key_reused',
      );
    }
    const runs = await sql`
      select r.id, r.plan -> 0 ->> 'prompt' as prompt, r.inputs, e.assignment ->> 'prompt' as assigned,
        (select count(*)::int from audit_events a where a.kind = 'run.dispatched' and a.subject ->> 'runId' = r.id::text and a.subject ->> 'projectSlug' = ${ctx.project}) as audited
      from trigger_runs r join executions e on e.trigger_run_id = r.id
      where r.organization_id = (select id from organizations where slug = ${ctx.org}) and r.inputs ->> 'level' = 'high'`;
    expect(runs).toHaveLength(2);
    for (const run of runs)
      expect(run).toMatchObject({
        prompt: 'first high fix it',
        assigned: 'first high fix it',
        inputs: { level: 'high' },
        audited: 1,
      });
  });

  it('dispatches from a revision installed through the other instance, and refuses by it', async () => {
    const ctx = await organization('dev-lead');
    await warm(one, ctx);
    const installed = await call(two, 'POST', '/api/v1/configurations/install', {
      token: ctx.key,
      body: { projectSlug: ctx.project, yaml: configuration('someone-else', 'second') },
    });
    expect(installed.status, installed.text).toBe(201);
    // The hint's revision would let dev-lead in; the active one does not.
    expectProblem(await dispatch(one, ctx, body(ctx)), 403, 'actor_forbidden');
    expectProblem(
      await dispatch(one, ctx, body(ctx, { actor: 'someone-else', expectedVersionId: ctx.versionId })),
      409,
      'version_not_current',
    );
    const started = await dispatch(one, ctx, body(ctx, { actor: 'someone-else', input: 'now' }));
    expect(started.status, started.text).toBe(200);
    const run = await runOf(started.body.triggerRunId);
    expect(run?.revisionId).toBe(installed.body.versionId);
    expect(run?.plan[0].prompt).toBe('second low now');
    // And the next one, from the hint the exact path refreshed, too.
    const next = await dispatch(one, ctx, body(ctx, { actor: 'someone-else' }));
    expect(next.status, next.text).toBe(200);
    expect((await runOf(next.body.triggerRunId))?.revisionId).toBe(installed.body.versionId);
  });

  it("follows an organization trigger's new revision, and a configuration that takes its name over, installed through the other instance", async () => {
    const ctx = await organization();
    const orgTrigger = (actor: string, text: string) => `
name: triage
on:
  manual.run: {}
filters:
  from_users: [${actor}]
run:
  target: { daemon: dev-box, cwd: /srv/repo }
  agent:
    provider: claude
    prompt: "${text} {{ prompt }}"
    max_runtime: 30m
`;
    const first = await call(two, 'POST', '/api/v1/triggers/install', {
      token: ctx.key,
      body: { yaml: orgTrigger('dev-lead', 'one') },
    });
    expect(first.status, first.text).toBe(201);
    const triage = (overrides: Record<string, unknown> = {}) =>
      body(ctx, { trigger: 'triage', input: 'x', ...overrides });
    for (let round = 0; round < 2; round++) expect((await dispatch(one, ctx, triage())).status).toBe(200);
    const second = await call(two, 'POST', '/api/v1/triggers/install', {
      token: ctx.key,
      body: { yaml: orgTrigger('dev-lead', 'two') },
    });
    expect(second.status, second.text).toBe(201);
    const byRevision = await dispatch(one, ctx, triage());
    expect(byRevision.status, byRevision.text).toBe(200);
    const [run] =
      await sql`select trigger_revision_id as "revisionId", plan -> 0 ->> 'prompt' as prompt from trigger_runs where id = ${byRevision.body.triggerRunId}`;
    expect(run).toEqual({ revisionId: second.body.revisionId, prompt: 'two x' });
    // The project's configuration now has a trigger of that name: it comes first.
    const taken = await call(two, 'POST', '/api/v1/configurations/install', {
      token: ctx.key,
      body: {
        projectSlug: ctx.project,
        yaml: `${configuration('dev-lead', 'first')}  - name: triage\n    on: { manual.run: {} }\n    max_runtime: 1h\n    filters: { from_users: [dev-lead] }\n    steps:\n      - { id: go, environment: laptop, agent: { provider: claude }, prompt: [ { text: "config {{ prompt }}" } ] }\n`,
      },
    });
    expect(taken.status, taken.text).toBe(201);
    const byConfiguration = await dispatch(one, ctx, triage());
    expect(byConfiguration.status, byConfiguration.text).toBe(200);
    const [later] =
      await sql`select configuration_revision_id as "revisionId", trigger_revision_id as "triggerRevisionId", plan -> 0 ->> 'prompt' as prompt from trigger_runs where id = ${byConfiguration.body.triggerRunId}`;
    expect(later).toEqual({ revisionId: taken.body.versionId, triggerRevisionId: null, prompt: 'config x' });
  });

  it('refuses a key revoked through the other instance at the next dispatch, storing nothing', async () => {
    const ctx = await organization();
    await warm(one, ctx);
    const revoked = await call(two, 'POST', `/api/admin/v1/organizations/${ctx.org}/api-keys/${ctx.keyId}/revoke`, {
      token: two.adminToken,
    });
    expect(revoked.status, revoked.text).toBe(200);
    const request = body(ctx);
    const answer = await dispatch(one, ctx, request);
    expectProblem(answer, 401, 'unauthorized');
    expect(await sql`select 1 from trigger_runs where delivery_key = ${request.deliveryKey}`).toHaveLength(0);
  });

  it('refuses a dispatch to an archived project and to a daemon gone offline as the exact path does', async () => {
    const ctx = await organization();
    await warm(one, ctx);
    ctx.daemon.stop();
    await sql`update daemons set last_seen_at = now() - interval '1 hour' where id = ${ctx.daemon.id}`;
    expectProblem(await dispatch(one, ctx, body(ctx)), 409, 'daemon_offline');
    await sql`update projects set active = false where slug = ${ctx.project} and organization_id = (select id from organizations where slug = ${ctx.org})`;
    expectProblem(await dispatch(one, ctx, body(ctx)), 404, 'project_not_found');
  });

  it('starts no run when the key is revoked while the one statement waits to commit, and answers 401', async () => {
    const ctx = await organization();
    await warm(one, ctx);
    const request = body(ctx);
    const holder = await sql.reserve();
    let answer: Answer;
    try {
      await holder`begin`;
      await (holder as ReservedSql)`lock table trigger_runs in share mode`;
      const pending = dispatch(one, ctx, request);
      // The hinted statement itself, not the exact path's, is the one held.
      for (let waiting = false; !waiting;) {
        const rows = await sql`
          select 1 from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock' and query like ${`%${HINTED}%`} and pid <> pg_backend_pid()`;
        waiting = rows.length > 0;
        if (!waiting) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const revoked = await call(two, 'POST', `/api/admin/v1/organizations/${ctx.org}/api-keys/${ctx.keyId}/revoke`, {
        token: two.adminToken,
      });
      expect(revoked.status).toBe(200);
      await holder`rollback`;
      answer = await pending;
    } finally {
      holder.release();
    }
    expectProblem(answer, 401, 'unauthorized');
    expect(await sql`select 1 from trigger_runs where delivery_key = ${request.deliveryKey}`).toHaveLength(0);
    expect(
      await sql`select 1 from audit_events where kind = 'run.dispatched' and subject ->> 'projectSlug' = ${ctx.project} and organization_id = (select id from organizations where slug = ${ctx.org})`,
    ).toHaveLength(2);
  });
});

describe('DispatchHints', () => {
  const hint = (projectId: string) => ({
    projectId,
    configurationRevisionId: 'r',
    triggerRevisionId: null,
    triggerId: 't',
    trigger: {} as never,
    environments: [],
  });

  it('keeps at most its bound of each kind, dropping the least recently used', () => {
    const hints = new DispatchHints(3);
    for (const name of ['a', 'b', 'c']) {
      hints.rememberKey(name, { keyId: name, organizationId: 'o' });
      hints.rememberTrigger('o', 'p', name, hint(name));
    }
    expect(hints.key('a')).toBeDefined();
    expect(hints.trigger('o', 'p', 'a')).toBeDefined();
    hints.rememberKey('d', { keyId: 'd', organizationId: 'o' });
    hints.rememberTrigger('o', 'p', 'd', hint('d'));
    expect(hints.size).toEqual({ keys: 3, triggers: 3 });
    expect(hints.key('b')).toBeUndefined();
    expect(hints.trigger('o', 'p', 'b')).toBeUndefined();
    expect(hints.key('a')?.keyId).toBe('a');
    expect(hints.trigger('o', 'p', 'a')?.projectId).toBe('a');
    for (let index = 0; index < 100; index++)
      hints.rememberKey(`k${index}`, { keyId: String(index), organizationId: 'o' });
    expect(hints.size.keys).toBe(3);
  });

  it('forgets what it is told to', () => {
    const hints = new DispatchHints();
    hints.rememberKey('a', { keyId: 'a', organizationId: 'o' });
    hints.rememberTrigger('o', 'p', 'a', hint('a'));
    hints.forgetKey('a');
    hints.forgetTrigger('o', 'p', 'a');
    expect(hints.size).toEqual({ keys: 0, triggers: 0 });
  });
});
