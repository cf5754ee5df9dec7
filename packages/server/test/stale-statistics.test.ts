// Look-ups by primary key (or the index meant for them) whatever the planner's statistics say.
// PostgreSQL without autovacuum keeps the statistics of the moment someone ran ANALYZE: here,
// while the run tables were all but empty (a few runs of another organization). Then 8,000 runs
// of this organization come, which the statistics say are none: with the organization's condition
// beside the primary key's, PostgreSQL 15 then reads GET /runs/{id}'s run by the organization's
// whole range of the (organization_id, delivery_key) index. Each read-side query runs as the hub
// runs it (postgres.js, prepared, past the point where PostgreSQL may switch to a generic plan),
// and auto_explain hands back every plan it executed: the shape of the plan is checked, never a time.
import type { Sql } from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutputRepository } from '../src/runs/output/sql.js';
import { ProjectList } from '../src/projects/list.js';
import { RunListRepository } from '../src/runs/run-list.js';
import { executionView, runView, runViews } from '../src/runs/run-view.js';
import { call, enrollDaemon, setUp } from './support/client.js';
import { configurationPartials, configurationYaml, exampleDaemons } from './support/documents.js';
import { databases, hubOn } from './support/hub.js';
import { PlanRecorder } from './support/plans.js';

const RUNS = 8_000;

interface SeedIds {
  organizationId: string;
  projectId: string;
  keyId: string;
  revisionId: string;
  daemonId: string;
}

/** `count` finished runs (every tenth still running) with two executions each and three lines of output on the first. */
async function seed(sql: Sql, ids: SeedIds, prefix: string, count: number): Promise<void> {
  await sql`
    insert into trigger_runs (organization_id, project_id, delivery_key, request_digest, trigger_name, configuration_revision_id,
      trigger_id, actor, inputs, plan, max_runtime_ms, status, api_key_id, created_at, finished_at)
    select ${ids.organizationId}, ${ids.projectId}, ${prefix}::text || '-' || i, '\\x00', 'fix-tests', ${ids.revisionId}, gen_random_uuid(), 'dev-lead',
      '{}', '[]', 3600000, case when i % 10 = 0 then 'running' else 'succeeded' end, ${ids.keyId},
      now() - (${count} - i) * interval '1 second', case when i % 10 = 0 then null else now() end
    from generate_series(1, ${count}) i`;
  await sql`
    insert into executions (trigger_run_id, step_index, step_id, daemon_id, status, assignment, max_runtime_ms, created_at, started_at, finished_at, exit_code)
    select r.id, s, 'step-' || s, ${ids.daemonId}, case when r.status = 'running' then 'running' else 'succeeded' end, '{}', 3600000,
      r.created_at, r.created_at, r.finished_at, case when r.status = 'running' then null else 0 end
    from trigger_runs r, generate_series(0, 1) s where r.delivery_key like ${`${prefix}-%`}`;
  await sql`
    insert into execution_output (execution_id, seq, stream, at, text, bytes)
    select e.id, s, 'stdout', now(), 'line ' || s || E'\\n', 7
    from executions e join trigger_runs r on r.id = e.trigger_run_id, generate_series(0, 2) s
    where e.step_index = 0 and r.delivery_key like ${`${prefix}-%`}`;
}

describe.each(databases)('read-side look-ups with statistics taken while the tables were empty (%s)', (kind) => {
  let hub: Awaited<ReturnType<typeof hubOn>>;
  let ctx: Awaited<ReturnType<typeof setUp>>;
  let organizationId: string;
  let runId: string;
  let executionId: string;
  /** One connection with auto_explain on. */
  let plans: PlanRecorder;

  beforeAll(async () => {
    hub = await hubOn(kind);
    ctx = await setUp(hub);
    for (const daemon of exampleDaemons) await enrollDaemon(hub, ctx.key, daemon.name, daemon.runtimes);
    const installed = await call(hub, 'POST', '/api/v1/configurations/install', {
      token: ctx.key,
      body: { projectSlug: ctx.project, yaml: configurationYaml, partials: configurationPartials },
    });
    expect(installed.status, installed.text).toBe(201);
    const sql = hub.sql;
    const [ids] = await sql<
      { organizationId: string; projectId: string; keyId: string; revisionId: string; daemonId: string }[]
    >`
      select o.id as "organizationId", p.id as "projectId", k.id as "keyId", r.id as "revisionId", d.id as "daemonId"
      from organizations o join projects p on p.organization_id = o.id join api_keys k on k.organization_id = o.id
      join configuration_revisions r on r.project_id = p.id and r.active join daemons d on d.organization_id = o.id
      where o.slug = ${ctx.org} limit 1`;
    if (ids === undefined) throw new Error('setup: nothing to seed from');
    ({ organizationId } = ids);
    // Statistics of run tables that hold only a few runs of another organization.
    const other = await setUp(hub);
    const [elsewhere] = await sql<{ organizationId: string; projectId: string }[]>`
      select o.id as "organizationId", p.id as "projectId" from organizations o join projects p on p.organization_id = o.id where o.slug = ${other.org}`;
    await seed(sql, { ...ids, ...elsewhere }, 'other', 50);
    await sql`analyze`;
    await seed(sql, ids, 'seed', RUNS);
    const [middle] = await sql<{ runId: string; executionId: string }[]>`
      select r.id as "runId", e.id as "executionId" from trigger_runs r join executions e on e.trigger_run_id = r.id and e.step_index = 0
      where r.delivery_key = ${`seed-${RUNS / 2}`}`;
    if (middle === undefined) throw new Error('setup: the seeded run is missing');
    ({ runId, executionId } = middle);
    plans = await new PlanRecorder(hub).start();
  }, 180_000);

  afterAll(async () => {
    await plans?.end();
    await hub?.close();
  });

  /** The indexes a table was read by ('Seq Scan' for none), from `plans.access`. */
  const indexes = (ways: string[] | undefined) =>
    [
      ...new Set(
        (ways ?? []).map((way) => /^(?:Index Scan|Index Only Scan|Bitmap Heap Scan) (.+)$/.exec(way)?.[1] ?? way),
      ),
    ].sort();

  it('GET /api/v1/runs/{id}: the run by its primary key, its executions by their run', async () => {
    const found = await plans.access(async (sql) =>
      expect((await runView(sql, organizationId, runId))?.triggerRunId).toBe(runId),
    );
    expect(indexes(found.trigger_runs)).toEqual(['trigger_runs_pkey']);
    expect(indexes(found.executions)).toEqual(['executions_trigger_run_id_step_index_key']);
    // Another organization's run is not found.
    expect(
      await runView(
        plans.sql,
        organizationId.replace(/^./, (c) => (c === '0' ? '1' : '0')),
        runId,
      ),
    ).toBeUndefined();
  });

  it('an execution, and where its output stands, by primary keys', async () => {
    const found = await plans.access(async (sql) =>
      expect((await executionView(sql, organizationId, executionId))?.runId).toBe(runId),
    );
    expect(indexes(found.executions)).toEqual(['executions_pkey']);
    expect(indexes(found.trigger_runs)).toEqual(['trigger_runs_pkey']);
    const output = await plans.access(async (sql) =>
      expect((await new OutputRepository(sql).state(organizationId, executionId, runId))?.executionId).toBe(
        executionId,
      ),
    );
    expect(indexes(output.executions)).toEqual(['executions_pkey']);
    expect(indexes(output.trigger_runs)).toEqual(['trigger_runs_pkey']);
  });

  it("the runs lists (API and dashboard) find their cursor's run by its primary key", async () => {
    const api = await plans.access(async (sql) =>
      expect((await runViews(sql, organizationId, {}, runId, 5))?.length).toBe(6),
    );
    expect(indexes(api.trigger_runs)).toContain('trigger_runs_pkey');
    const dashboard = await plans.access(async (sql) =>
      expect((await new RunListRepository(sql).list(organizationId, runId, 5)).length).toBe(6),
    );
    expect(indexes(dashboard.trigger_runs)).toContain('trigger_runs_pkey');
  });

  it('a page of the projects list keeps its generic plan once the projects are analyzed', async () => {
    // Statistics of 10,000 projects: with the cursor and the limit visible to the planner, a custom
    // plan looked cheaper than the generic one, and PostgreSQL planned the statement on every call.
    await plans.sql`insert into projects (organization_id, slug, name) select ${organizationId}, 'p-' || lpad(i::text, 5, '0'), 'Project ' || i from generate_series(1, 10000) i`;
    await plans.sql`analyze projects`;
    const page = (sql: Sql) => sql<{ listed: { slug: string }[] }[]>`
      select ${ProjectList.page(sql, { after: 'p-05000', limit: 100 })} as listed from (select ${organizationId}::uuid as organization_id) key`;
    const found = await plans.access(async (sql) =>
      expect((await page(sql))[0]?.listed.map((project) => project.slug)).toEqual(
        Array.from({ length: 101 }, (_, i) => `p-${String(5001 + i).padStart(5, '0')}`),
      ),
    );
    expect(indexes(found.projects)).toEqual(['projects_organization_id_slug_key']);
    // The page's statement, found by a text this look-up's own does not contain as it is.
    const [prepared] = await plans.sql<{ generic: number }[]>`
      select generic_plans::int as generic from pg_prepared_statements where position('select json_agg' || '(json_strip_nulls(row_to_json(p))) from (' in statement) > 0`;
    expect(prepared?.generic).toBeGreaterThan(0);
  });
});
