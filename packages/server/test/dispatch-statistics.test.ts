// A dispatch's statements read every table by a unique index whatever the planner's statistics
// say (issue 15: with statistics taken while the tables were empty, dispatch halved at 7k runs).
// Statistics are taken while this organization has one key and one run; then it gets thousands
// of keys, runs and executions (the tables that grow; the small ones may be read whole). Each statement runs as the hub runs it (postgres.js, prepared, past the sixth
// execution, where PostgreSQL may switch to a generic plan), and auto_explain hands back every
// plan executed: the shape of the plans is checked, never a time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CLI_CREDENTIAL_EXPIRY } from '../src/auth/api-key.js';
import { RunRepository } from '../src/runs/dispatch/sql.js';
import { assignmentOf } from '../src/runs/dispatch/plan.js';
import { digestOf } from '../src/runs/dispatch/request.js';
import { prepareRun } from '../src/runs/dispatch/start.js';
import { call, setUp } from './support/client.js';
import { TestDaemon } from './support/daemon.js';
import { databases, hubOn } from './support/hub.js';
import { PlanRecorder } from './support/plans.js';

const CONFIGURATION = `
environments:
  - { name: laptop, kind: daemon, daemon: dev-box, cwd: /tmp/work }
triggers:
  - name: go
    on: { manual.run: {} }
    max_runtime: 1h
    filters: { from_users: [dev-lead] }
    steps:
      - { id: go, environment: laptop, agent: { provider: claude }, prompt: [ { text: "Go. {{ prompt }}" } ] }
`;

describe.each(databases)('dispatch statements with statistics taken while the tables were empty (%s)', (kind) => {
  let hub: Awaited<ReturnType<typeof hubOn>>;
  let ctx: Awaited<ReturnType<typeof setUp>>;
  let daemon: TestDaemon;
  let organizationId: string;
  let plans: PlanRecorder;

  beforeAll(async () => {
    hub = await hubOn(kind);
    ctx = await setUp(hub);
    daemon = (await TestDaemon.enroll(hub, ctx.key, 'dev-box')).keepAlive(1000);
    expect((await daemon.heartbeat()).status).toBe(200);
    const installed = await call(hub, 'POST', '/api/v1/configurations/install', {
      token: ctx.key,
      body: { projectSlug: ctx.project, yaml: CONFIGURATION },
    });
    expect(installed.status, installed.text).toBe(201);
    const first = await call(hub, 'POST', '/api/v1/manual-runs', {
      token: ctx.key,
      body: { projectSlug: ctx.project, trigger: 'go', actor: 'dev-lead', deliveryKey: 'before' },
    });
    expect(first.status, first.text).toBe(200);
    const sql = hub.sql;
    const [organization] = await sql<{ id: string }[]>`select id from organizations where slug = ${ctx.org}`;
    organizationId = organization?.id as string;
    await sql`analyze`;
    // Then many keys and runs of this organization, which the statistics know nothing of.
    await sql`
      insert into api_keys (organization_id, name, prefix, digest, scopes)
      select ${organizationId}, 'key ' || i, 'hub_pk_' || i, sha256(('seed-' || i)::bytea), '{runs:dispatch}' from generate_series(1, 3000) i`;
    await sql`
      insert into trigger_runs (organization_id, project_id, delivery_key, request_digest, trigger_name, configuration_revision_id,
        trigger_id, actor, inputs, plan, max_runtime_ms, status, api_key_id, finished_at)
      select r.organization_id, r.project_id, 'seed-' || i, '\\x00', r.trigger_name, r.configuration_revision_id, r.trigger_id, r.actor,
        '{}', '[]', r.max_runtime_ms, 'succeeded', r.api_key_id, now()
      from generate_series(1, 8000) i, (select * from trigger_runs where organization_id = ${organizationId} limit 1) r`;
    await sql`
      insert into executions (trigger_run_id, step_index, step_id, daemon_id, status, assignment, max_runtime_ms, finished_at, exit_code)
      select r.id, 0, 'go', ${daemon.id}, 'succeeded', '{}', 3600000, now(), 0 from trigger_runs r where r.delivery_key like 'seed-%'`;
    plans = await new PlanRecorder(hub).start();
  }, 180_000);

  afterAll(async () => {
    daemon?.stop();
    await plans?.end();
    await hub?.close();
  });

  it('reads the key of the one-statement dispatch by a unique index, and inserts its run', async () => {
    const runs = new RunRepository(plans.sql, { offlineAfterMs: 60_000 });
    const request = { projectSlug: ctx.project, trigger: 'go', actor: 'dev-lead', deliveryKey: 'first' };
    const { found } = RunRepository.lookupOf(await runs.lookup(organizationId, request));
    if (typeof found === 'string' || found.source !== 'configuration') throw new Error(`no trigger: ${String(found)}`);
    const [key] = await hub.sql<
      { id: string; digest: Buffer }[]
    >`select id, digest from api_keys where organization_id = ${organizationId} and name = 'test'`;
    if (key === undefined || found.configuredTriggerId === undefined) throw new Error('no key or configured trigger');
    const hint = {
      projectId: found.projectId,
      configurationRevisionId: found.revisionId,
      triggerRevisionId: null,
      triggerId: found.configuredTriggerId,
      trigger: found.trigger,
      environments: found.environments,
    };
    const started: boolean[] = [];
    const ways = await plans.access(async (_sql, index) => {
      const dispatch = { ...request, deliveryKey: `stale-${index}` };
      const prepared = prepareRun(found.trigger, found.environments, found.revisionId, dispatch);
      if (!prepared.ok) throw new Error(`refused: ${prepared.refusal.reason}`);
      const { plan, inputs } = prepared;
      const [triggerRunId, executionId] = [crypto.randomUUID(), crypto.randomUUID()];
      const result = await runs.dispatchHinted({
        triggerRunId,
        executionId,
        organizationId,
        keyId: key.id,
        keyDigest: key.digest,
        cliCredentials: DEFAULT_CLI_CREDENTIAL_EXPIRY,
        projectSlug: ctx.project,
        hint,
        deliveryKey: dispatch.deliveryKey,
        requestDigest: digestOf(dispatch),
        actor: dispatch.actor,
        inputs,
        plan,
        assignment: assignmentOf(plan[0], { executionId, triggerRunId, inputs, actor: dispatch.actor }),
      });
      started.push(result.started);
    });
    expect(started).toEqual(Array(7).fill(true));
    expect(
      ways.api_keys?.every((way) => /api_keys_(pkey|digest_key)$/.test(way) || way === 'ModifyTable'),
      JSON.stringify(ways),
    ).toBe(true);
    expect(ways.trigger_runs, JSON.stringify(ways)).toEqual(['ModifyTable']);
  });

  it("reads the exact path's earlier delivery by unique indexes", async () => {
    const runs = new RunRepository(plans.sql, { offlineAfterMs: 60_000 });
    const ways = await plans.access((_sql, index) =>
      runs.lookup(organizationId, { projectSlug: ctx.project, trigger: 'go', deliveryKey: `seed-${index * 1000 + 1}` }),
    );
    expect(ways.trigger_runs, JSON.stringify(ways)).toEqual([
      'Index Scan trigger_runs_organization_id_delivery_key_key',
    ]);
    expect(ways.executions, JSON.stringify(ways)).toEqual(['Index Scan executions_trigger_run_id_step_index_key']);
  });
});
