import type { Run } from '@hub/schemas';
import type { Fragment, Sql } from 'postgres';

export interface RunFilter {
  projectSlug?: string;
  trigger?: string;
  status?: string;
  source?: string;
}

/**
 * A run of the organization with its executions, as GET /api/v1/runs/{id} answers it. The run is
 * read by its primary key alone, and its organization checked after: see `byId`.
 */
export async function runView(sql: Sql, organizationId: string, triggerRunId: string): Promise<Run | undefined> {
  const [run] = await sql<Record<string, unknown>[]>`
    with one as materialized (${byId(sql, triggerRunId)})
    ${runColumns(sql, sql`one`)} where r.organization_id = ${organizationId}`;
  return run === undefined ? undefined : asRun(run);
}

/**
 * The run `id`'s row, for a MATERIALIZED CTE: its only condition is the primary key's, so the
 * primary key is the only index PostgreSQL can read it by, whatever its statistics say. With the
 * organization's condition beside it, statistics taken while the table was empty (no autovacuum)
 * let the planner read the organization's whole range of the (organization_id, delivery_key)
 * index instead: GET /runs/{id} went from 690 to 187 req/s at 7,000 runs.
 */
function byId(sql: Sql, id: string): Fragment {
  return sql`
    select id, organization_id, project_id, trigger_name, actor, delivery_key, status, source, event, message, inputs,
      created_at, finished_at, cancel_requested_at
    from trigger_runs where id = ${id}`;
}

/**
 * Up to `limit + 1` runs of the organization, newest first, older than the run `before` (from the
 * newest when undefined); the extra one tells of a next page. Undefined when `before` is not a
 * run of the organization (a forged or foreign cursor).
 */
export async function runViews(
  sql: Sql,
  organizationId: string,
  filter: RunFilter,
  before: string | undefined,
  limit: number,
): Promise<Run[] | undefined> {
  if (before !== undefined) {
    // By the primary key alone (see `byId`), the organization compared here.
    const [known] = await sql<
      { organizationId: string }[]
    >`select organization_id as "organizationId" from trigger_runs where id = ${before}`;
    if (known?.organizationId !== organizationId) return undefined;
  }
  const conditions: Fragment[] = [sql`r.organization_id = ${organizationId}`];
  if (before !== undefined)
    conditions.push(sql`(r.created_at, r.id) < (select created_at, id from trigger_runs where id = ${before})`);
  if (filter.projectSlug !== undefined) conditions.push(sql`p.slug = ${filter.projectSlug}`);
  if (filter.trigger !== undefined) conditions.push(sql`r.trigger_name = ${filter.trigger}`);
  if (filter.status !== undefined) conditions.push(sql`r.status = ${filter.status}`);
  if (filter.source !== undefined) conditions.push(sql`r.source = ${filter.source}`);
  const where = conditions.reduce((all, condition) => sql`${all} and ${condition}`);
  const rows = await sql<
    Record<string, unknown>[]
  >`${runColumns(sql, sql`trigger_runs`)} where ${where} order by r.created_at desc, r.id desc limit ${limit + 1}`;
  return rows.map(asRun);
}

/** The columns of a run as the API gives it, from `source` (trigger_runs, or a CTE of some of its rows) as `r`. */
function runColumns(sql: Sql, source: Fragment): Fragment {
  return sql`
    select r.id as "triggerRunId", p.slug as "projectSlug", r.trigger_name as "trigger", r.actor, r.delivery_key as "deliveryKey",
      r.status, r.source, r.event, r.message, r.inputs, r.created_at as "createdAt", r.finished_at as "finishedAt", r.cancel_requested_at as "cancelRequestedAt",
      coalesce((
        select json_agg(json_build_object(
          'executionId', e.id, 'stepId', e.step_id, 'daemonId', e.daemon_id, 'daemon', d.name, 'status', e.status,
          'exitCode', e.exit_code, 'message', e.message, 'createdAt', e.created_at, 'startedAt', e.started_at, 'finishedAt', e.finished_at)
          order by e.step_index)
        from executions e join daemons d on d.id = e.daemon_id where e.trigger_run_id = r.id), '[]'::json) as executions
    from ${source} r join projects p on p.id = r.project_id`;
}

/** An execution of a run of the organization, with the run's id; each row by its primary key alone (see `byId`). */
export async function executionView(
  sql: Sql,
  organizationId: string,
  executionId: string,
): Promise<{ runId: string; execution: Run['executions'][number] } | undefined> {
  const [row] = await sql<Record<string, unknown>[]>`
    select e.trigger_run_id as "runId", e.id as "executionId", e.step_id as "stepId", e.daemon_id as "daemonId", d.name as daemon, e.status,
      e.exit_code as "exitCode", e.message, e.created_at as "createdAt", e.started_at as "startedAt", e.finished_at as "finishedAt"
    from executions e join daemons d on d.id = e.daemon_id
    where e.id = ${executionId} and (select organization_id from trigger_runs where id = e.trigger_run_id) = ${organizationId}`;
  if (row === undefined) return undefined;
  const { runId, ...execution } = row;
  return { runId: runId as string, execution: asExecution(execution) as Run['executions'][number] };
}

// Times as the rest of the API gives them: ISO 8601 UTC with milliseconds.
const iso = (value: unknown) =>
  value === null || value === undefined ? null : new Date(value as string).toISOString();

function asExecution(execution: Record<string, unknown>) {
  return {
    ...execution,
    createdAt: iso(execution.createdAt),
    startedAt: iso(execution.startedAt),
    finishedAt: iso(execution.finishedAt),
  };
}

function asRun(row: Record<string, unknown>): Run {
  const executions = (row.executions as Record<string, unknown>[]).map(asExecution);
  // A manual run has no event, and a run with executions no message of its own: absent then.
  const { event, message, ...run } = row;
  return {
    ...run,
    ...(event === null ? {} : { event }),
    ...(message === null ? {} : { message }),
    createdAt: iso(run.createdAt),
    finishedAt: iso(run.finishedAt),
    cancelRequestedAt: iso(run.cancelRequestedAt),
    executions,
  } as Run;
}
