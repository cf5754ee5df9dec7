// The lost and timed-out sweeps in batches, and retention (issue 15): straight on the
// repositories (packages/server/dist), against a real hub's database on both kinds of PostgreSQL.
// The hub's own sweeper is slowed to once a day here, so that only the test sweeps; its results
// through the API are dispatch.test.ts's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../src/config.js';
import { ExecutionRepository, SWEEP_BATCH } from '../src/runs/executions.js';
import { RETENTION_BATCH, RetentionRepository } from '../src/retention/policy.js';
import { call, setUp } from './support/client.js';
import { TestDaemon } from './support/daemon.js';
import { databases, hubOn } from './support/hub.js';

const TIMING = { offlineAfterMs: 4_000, redeliverAfterMs: 1_500, timeoutGraceMs: 500 };
const configuration = (round: number) => `
environments:
  - { name: laptop, kind: daemon, daemon: dev-box, cwd: /tmp/work }
  - { name: far, kind: daemon, daemon: far-box, cwd: /tmp/work }
triggers:
  - name: go
    on: { manual.run: {} }
    max_runtime: 1h
    filters: { from_users: [x] }
    steps:
      - { id: go, environment: laptop, agent: { provider: claude }, prompt: [ { text: "round ${round} {{ prompt }}" } ] }
`;
const orgTrigger = (round: number) => `
name: nightly
on: { manual.run: {} }
filters: { from_users: [x] }
run:
  target: { daemon: dev-box, cwd: /srv/repo }
  agent: { provider: codex, prompt: "Round ${round}. {{ prompt }}", max_runtime: 30m }
`;

describe.each(databases)('sweeps and retention on the %s database', (kind) => {
  let hub: Awaited<ReturnType<typeof hubOn>>;
  let ctx: Awaited<ReturnType<typeof setUp>>;
  let devBox: TestDaemon;
  let ids: { org: string; project: string; revision: string; key: string; devBox: string; farBox: string };
  let seeded = 0;

  beforeAll(async () => {
    hub = await hubOn(kind, {
      HUB_SWEEP_EVERY_MS: '86400000',
      HUB_RETAIN_RUNS_DAYS: 'forever',
      HUB_RETAIN_REVISIONS_DAYS: 'forever',
    });
    ctx = await setUp(hub, {
      scopes: ['configuration:install', 'daemons:enroll', 'runs:dispatch', 'runs:read', 'audit:read'],
    });
    devBox = (await TestDaemon.enroll(hub, ctx.key, 'dev-box')).keepAlive(300);
    await devBox.heartbeat();
    const farBox = await TestDaemon.enroll(hub, ctx.key, 'far-box');
    await farBox.heartbeat();
    const installed = await call(hub, 'POST', '/api/v1/configurations/install', {
      token: ctx.key,
      body: { projectSlug: ctx.project, yaml: configuration(0) },
    });
    expect(installed.status, installed.text).toBe(201);
    const [row] = await hub.sql<{ org: string; project: string }[]>`
      select p.organization_id as org, p.id as project from projects p join organizations o on o.id = p.organization_id where o.slug = ${ctx.org}`;
    ids = {
      ...(row as { org: string; project: string }),
      revision: installed.body.versionId,
      key: ctx.keyId,
      devBox: devBox.id,
      farBox: farBox.id,
    };
  }, 120_000);
  afterAll(async () => {
    devBox?.stop();
    await hub?.close();
  });

  /** `count` runs of the project, each with one execution; returns their ids. */
  const seedRuns = async (
    count: number,
    run: {
      status?: string;
      createdAgo?: string;
      finishedAgo?: string | null;
      revision?: string;
      maxRuntimeMs?: number;
    },
    execution: { status: string; daemon?: string; startedAgo?: string | null; output?: number },
  ): Promise<string[]> => {
    const prefix = `seed-${++seeded}`;
    const rows = await hub.sql<{ id: string }[]>`
      with runs as (
        insert into trigger_runs (organization_id, project_id, delivery_key, request_digest, trigger_name, configuration_revision_id, trigger_id,
          actor, inputs, plan, max_runtime_ms, status, api_key_id, created_at, finished_at)
        select ${ids.org}, ${ids.project}, ${prefix} || '-' || g, '\\x00', 'go', ${run.revision ?? ids.revision}, ${ids.project}, 'x', '{}', '[]',
          ${run.maxRuntimeMs ?? 3_600_000}, ${run.status ?? 'running'}, ${ids.key},
          now() - ${run.createdAgo ?? '0 s'}::interval, now() - ${run.finishedAgo ?? null}::interval
        from generate_series(1, ${count}) g
        returning id, created_at, finished_at
      ), executions as (
        insert into executions (trigger_run_id, step_index, step_id, daemon_id, status, assignment, max_runtime_ms, created_at, started_at, finished_at)
        select id, 0, 'go', ${execution.daemon ?? ids.devBox}, ${execution.status}, '{}', 3600000, created_at,
          now() - ${execution.startedAgo ?? null}::interval, finished_at
        from runs
        returning id
      ), output as (
        insert into execution_output (execution_id, seq, stream, at, text, bytes)
        select e.id, s, 'stdout', now(), 'line', 4 from executions e, generate_series(1, ${execution.output ?? 0}) s
      )
      select id from runs`;
    return rows.map((row) => row.id);
  };
  const statuses = async (runIds: string[]) =>
    hub.sql<{ run: string; execution: string; message: string | null; count: number }[]>`
      select r.status as run, e.status as execution, e.message, count(*)::int as count
      from trigger_runs r join executions e on e.trigger_run_id = r.id
      where r.id = any(${runIds}::uuid[]) group by 1, 2, 3 order by 1, 2`;

  it('marks every execution of an offline daemon lost in batches, with two instances sweeping at once, each run failed once', async () => {
    const count = 2 * SWEEP_BATCH + 150;
    const runs = await seedRuns(count, {}, { status: 'spawning', daemon: ids.farBox });
    const [running] = await seedRuns(1, {}, { status: 'running', daemon: ids.farBox, startedAgo: '1 s' });
    const other = await seedRuns(3, {}, { status: 'spawning' });
    await hub.sql`update daemons set last_seen_at = now() - interval '1 minute' where id = ${ids.farBox}`;
    const [a, b] = [new ExecutionRepository(hub.sql, TIMING), new ExecutionRepository(hub.sql, TIMING)];
    const [first, second] = await Promise.all([a.sweepLost(), b.sweepLost()]);
    expect(first + second).toBe(count + 1);
    expect(await statuses([...runs, running as string])).toEqual([
      {
        run: 'failed',
        execution: 'lost',
        message: 'The daemon went offline: no heartbeat or long-poll within 4 s.',
        count: count + 1,
      },
    ]);
    // The online daemon's work is untouched; a second sweep finds nothing.
    expect(await statuses(other)).toEqual([{ run: 'running', execution: 'spawning', message: null, count: 3 }]);
    expect(await a.sweepLost()).toBe(0);
  });

  it('times out running executions past max_runtime and runs past theirs, in batches, and nothing else', async () => {
    const late = await seedRuns(SWEEP_BATCH + 20, {}, { status: 'running', startedAgo: '1 hour 1 s' });
    const onTime = await seedRuns(5, {}, { status: 'running', startedAgo: '59 minutes' });
    const overdue = await seedRuns(SWEEP_BATCH + 5, { createdAgo: '2 hours' }, { status: 'spawning' });
    const sweeps = new ExecutionRepository(hub.sql, TIMING);
    expect(await sweeps.sweepTimedOut()).toBe(late.length + overdue.length);
    expect(await statuses(late)).toEqual([
      {
        run: 'timed_out',
        execution: 'timed_out',
        message: 'The daemon did not report the end of the execution within its max_runtime.',
        count: late.length,
      },
    ]);
    expect(await statuses(overdue)).toEqual([
      { run: 'timed_out', execution: 'timed_out', message: 'The run reached its max_runtime.', count: overdue.length },
    ]);
    expect(await statuses(onTime)).toEqual([{ run: 'running', execution: 'running', message: null, count: 5 }]);
    expect(await sweeps.sweepTimedOut()).toBe(0);
  });

  describe('retention', () => {
    const policy = { runsDays: 30, revisionsDays: 30, revisionsKept: 2 };
    const exists = async (table: 'trigger_runs' | 'configuration_revisions' | 'trigger_revisions', id: string) =>
      (await hub.sql`select 1 from ${hub.sql(table)} where id = ${id}`).length === 1;

    it('prunes finished runs past retention with their executions and output, never an unfinished one', async () => {
      const old = await seedRuns(
        RETENTION_BATCH.runs + 10,
        { status: 'succeeded', createdAgo: '41 days', finishedAgo: '40 days' },
        { status: 'succeeded', startedAgo: '41 days', output: 3 },
      );
      const recent = await seedRuns(
        2,
        { status: 'failed', createdAgo: '29 days', finishedAgo: '29 days' },
        { status: 'failed', output: 1 },
      );
      const unfinished = await seedRuns(
        1,
        { createdAgo: '100 days', maxRuntimeMs: 1e12 },
        { status: 'running', startedAgo: '100 days' },
      );
      // Ended (cancelled, say) while its execution is still in flight on the daemon: kept until that ends too.
      const stillInFlight = await seedRuns(
        1,
        { status: 'cancelled', createdAgo: '100 days', finishedAgo: '99 days' },
        { status: 'running', startedAgo: '100 days' },
      );
      const pruned = await new RetentionRepository(hub.sql, policy).prune();
      expect(pruned).toMatchObject({ runs: old.length, executions: old.length, outputChunks: 3 * old.length });
      const left = await hub.sql<{ count: number }[]>`
        select (select count(*) from trigger_runs where id = any(${old}::uuid[]))::int
          + (select count(*) from executions where trigger_run_id = any(${old}::uuid[]))::int as count`;
      expect(left[0]?.count).toBe(0);
      for (const id of [...recent, ...unfinished, ...stillInFlight])
        expect(await exists('trigger_runs', id)).toBe(true);
    });

    it('prunes inactive revisions past retention, never the active one, the newest kept, or one a run left names', async () => {
      const project = `history-${kind}`;
      await call(hub, 'POST', `/api/admin/v1/organizations/${ctx.org}/projects`, {
        token: hub.adminToken,
        body: { slug: project, name: project },
      });
      const versions: string[] = [];
      for (let round = 1; round <= 6; round++) {
        const installed = await call(hub, 'POST', '/api/v1/configurations/install', {
          token: ctx.key,
          body: { projectSlug: project, yaml: configuration(round) },
        });
        expect(installed.status, installed.text).toBe(201);
        versions.push(installed.body.versionId);
        const trigger = await call(hub, 'POST', '/api/v1/triggers/install', {
          token: ctx.key,
          body: { yaml: orgTrigger(round) },
        });
        expect(trigger.status, trigger.text).toBe(201);
      }
      // All of them installed 40 days ago, the active one included; a run still names version 2.
      await hub.sql`update configuration_revisions set created_at = now() - interval '40 days' where id = any(${versions}::uuid[])`;
      await hub.sql`update trigger_revisions set created_at = now() - interval '40 days'`;
      const [named] = await seedRuns(
        1,
        { status: 'succeeded', createdAgo: '5 days', finishedAgo: '5 days', revision: versions[1] },
        { status: 'succeeded' },
      );
      const pruned = await new RetentionRepository(hub.sql, policy).prune();
      expect(pruned).toMatchObject({ configurationRevisions: 3, triggerRevisions: 4 });
      const kept = await Promise.all(versions.map((id) => exists('configuration_revisions', id)));
      // Versions 1, 3 and 4 go; 2 (its run), 5 (the newest two) and 6 (active) stay.
      expect(kept).toEqual([false, true, false, false, true, true]);
      const triggerVersions = await hub.sql<
        { version: number; active: boolean }[]
      >`select version, active from trigger_revisions order by version`;
      expect(triggerVersions).toEqual([
        { version: 5, active: false },
        { version: 6, active: true },
      ]);
      // With the run gone, so is its revision; the active one stays even with nothing kept by count.
      await hub.sql`update trigger_runs set finished_at = now() - interval '31 days' where id = ${named as string}`;
      expect(await new RetentionRepository(hub.sql, { ...policy, revisionsKept: 0 }).prune()).toMatchObject({
        runs: 1,
        configurationRevisions: 2,
        triggerRevisions: 1,
      });
      expect(await Promise.all(versions.map((id) => exists('configuration_revisions', id)))).toEqual([
        false,
        false,
        false,
        false,
        false,
        true,
      ]);
      // The project's next version is still 7.
      const next = await call(hub, 'POST', '/api/v1/configurations/install', {
        token: ctx.key,
        body: { projectSlug: project, yaml: configuration(7) },
      });
      expect(next.body.version).toBe(7);
    });

    it('keeps the audit log readable after pruning: installs and dispatches with their actors', async () => {
      const dispatched = await call(hub, 'POST', '/api/v1/manual-runs', {
        token: ctx.key,
        body: { projectSlug: ctx.project, trigger: 'go', actor: 'x', deliveryKey: 'audited' },
      });
      expect(dispatched.status, dispatched.text).toBe(200);
      await hub.sql`update executions set status = 'succeeded', finished_at = now() - interval '40 days' where trigger_run_id = ${dispatched.body.triggerRunId}`;
      await hub.sql`update trigger_runs set status = 'succeeded', finished_at = now() - interval '40 days' where id = ${dispatched.body.triggerRunId}`;
      await new RetentionRepository(hub.sql, policy).prune();
      expect(await exists('trigger_runs', dispatched.body.triggerRunId)).toBe(false);
      expect((await call(hub, 'GET', `/api/v1/runs/${dispatched.body.triggerRunId}`, { token: ctx.key })).status).toBe(
        404,
      );
      const audit = await call(hub, 'GET', '/api/v1/audit-events?limit=100', { token: ctx.key });
      expect(audit.status, audit.text).toBe(200);
      const actor = { kind: 'key', id: ctx.keyId, name: 'test', prefix: expect.stringMatching(/^hub_pk_/) };
      const events = audit.body.events as { kind: string; actor: unknown; subject: Record<string, unknown> }[];
      expect(
        events.find((event) => event.kind === 'run.dispatched' && event.subject.runId === dispatched.body.triggerRunId),
      ).toMatchObject({ actor });
      const installs = events.filter(
        (event) => event.kind === 'configuration.installed' && event.subject.projectSlug === `history-${kind}`,
      );
      expect(installs.map((event) => event.subject.version).sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
      for (const event of installs) expect(event.actor).toMatchObject(actor);
    });

    it('takes row locks only: a run another transaction holds is skipped, not waited for, and goes on a later pass', async () => {
      const old = await seedRuns(
        3,
        { status: 'succeeded', createdAgo: '41 days', finishedAgo: '40 days' },
        { status: 'succeeded', output: 1 },
      );
      const held = old[0] as string;
      let release: () => void = () => {};
      const released = new Promise<void>((resolve) => (release = resolve));
      let holding: () => void = () => {};
      const locked = new Promise<void>((resolve) => (holding = resolve));
      const holder = hub.sql.begin(async (tx) => {
        await tx`select 1 from trigger_runs where id = ${held} for update`;
        holding();
        await released;
      });
      await locked;
      try {
        // Meanwhile a dispatch (an insert into the same tables) goes through, and the pass ends.
        const dispatched = await call(hub, 'POST', '/api/v1/manual-runs', {
          token: ctx.key,
          body: { projectSlug: ctx.project, trigger: 'go', actor: 'x', deliveryKey: 'during-retention' },
        });
        expect(dispatched.status, dispatched.text).toBe(200);
        expect(await new RetentionRepository(hub.sql, policy).prune()).toMatchObject({ runs: 2 });
        expect(await exists('trigger_runs', held)).toBe(true);
      } finally {
        release();
        await holder;
      }
      expect(await new RetentionRepository(hub.sql, policy).prune()).toMatchObject({ runs: 1 });
      expect(await exists('trigger_runs', held)).toBe(false);
    });
  });
});

describe.each(databases)('a hub with retention on the %s database', (kind) => {
  let hub: Awaited<ReturnType<typeof hubOn>>;
  beforeAll(async () => {
    hub = await hubOn(kind, { HUB_RETAIN_RUNS_DAYS: '30', HUB_RETAIN_EVERY_MS: '200', HUB_LOG_LEVEL: 'info' });
  }, 120_000);
  afterAll(async () => {
    await hub?.close();
  });

  it('prunes on its own, on its clock, and logs what it pruned', async () => {
    const ctx = await setUp(hub);
    const devBox = await TestDaemon.enroll(hub, ctx.key, 'dev-box');
    await devBox.heartbeat();
    await TestDaemon.enroll(hub, ctx.key, 'far-box');
    const installed = await call(hub, 'POST', '/api/v1/configurations/install', {
      token: ctx.key,
      body: { projectSlug: ctx.project, yaml: configuration(0) },
    });
    expect(installed.status, installed.text).toBe(201);
    const kept = await call(hub, 'POST', '/api/v1/manual-runs', {
      token: ctx.key,
      body: { projectSlug: ctx.project, trigger: 'go', actor: 'x', deliveryKey: 'kept' },
    });
    const old = await call(hub, 'POST', '/api/v1/manual-runs', {
      token: ctx.key,
      body: { projectSlug: ctx.project, trigger: 'go', actor: 'x', deliveryKey: 'old' },
    });
    expect([kept.status, old.status]).toEqual([200, 200]);
    await hub.sql`update executions set status = 'succeeded', finished_at = now() - interval '31 days' where trigger_run_id = ${old.body.triggerRunId}`;
    await hub.sql`update trigger_runs set status = 'succeeded', finished_at = now() - interval '31 days' where id = ${old.body.triggerRunId}`;
    const until = Date.now() + 20_000;
    while (!/history pruned/.test(hub.output()) && Date.now() < until)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(hub.output()).toMatch(/history pruned.*"runs":1,"executions":1,/);
    expect((await call(hub, 'GET', `/api/v1/runs/${old.body.triggerRunId}`, { token: ctx.key })).status).toBe(404);
    expect((await call(hub, 'GET', `/api/v1/runs/${kept.body.triggerRunId}`, { token: ctx.key })).status).toBe(200);
  });
});

describe('retention settings', () => {
  const retention = (env: Record<string, string>) => readConfig(env).retention;
  it('keeps every run, 90 days of revisions and the newest 10 revisions by default, a pass every 10 minutes', () => {
    expect(retention({})).toEqual({ runsDays: undefined, revisionsDays: 90, revisionsKept: 10, everyMs: 600_000 });
  });
  it.each([
    ['forever', undefined],
    ['FOREVER', undefined],
    ['0', undefined],
    ['1', 1],
    [' 365 ', 365],
  ])('reads HUB_RETAIN_RUNS_DAYS=%j as %j days', (raw, days) => {
    expect(retention({ HUB_RETAIN_RUNS_DAYS: raw }).runsDays).toBe(days);
    expect(retention({ HUB_RETAIN_REVISIONS_DAYS: raw }).revisionsDays).toBe(days);
  });
  it.each(['-1', '1.5', 'ninety', '36501'])('refuses HUB_RETAIN_RUNS_DAYS=%j', (raw) => {
    expect(() => retention({ HUB_RETAIN_RUNS_DAYS: raw })).toThrow(
      /HUB_RETAIN_RUNS_DAYS must be a whole number of days/,
    );
  });
});
