import type { Run } from '@hub/schemas';
import type { Sql } from 'postgres';

/** A run of the organization with its executions, as GET /api/v1/runs/{id} answers it. */
export async function runView(sql: Sql, organizationId: string, triggerRunId: string): Promise<Run | undefined> {
  const [run] = await sql<Record<string, unknown>[]>`
    select r.id as "triggerRunId", p.slug as "projectSlug", r.trigger_name as "trigger", r.actor, r.delivery_key as "deliveryKey",
      r.status, r.inputs, r.created_at as "createdAt", r.finished_at as "finishedAt",
      coalesce((
        select json_agg(json_build_object(
          'executionId', e.id, 'stepId', e.step_id, 'daemonId', e.daemon_id, 'daemon', d.name, 'status', e.status,
          'exitCode', e.exit_code, 'message', e.message, 'createdAt', e.created_at, 'startedAt', e.started_at, 'finishedAt', e.finished_at)
          order by e.step_index)
        from executions e join daemons d on d.id = e.daemon_id where e.trigger_run_id = r.id), '[]'::json) as executions
    from trigger_runs r join projects p on p.id = r.project_id
    where r.organization_id = ${organizationId} and r.id = ${triggerRunId}`;
  if (run === undefined) return undefined;
  // Times as the rest of the API gives them: ISO 8601 UTC with milliseconds.
  const iso = (value: unknown) => (value === null || value === undefined ? null : new Date(value as string).toISOString());
  const executions = (run.executions as Record<string, unknown>[]).map((execution) => ({
    ...execution,
    createdAt: iso(execution.createdAt),
    startedAt: iso(execution.startedAt),
    finishedAt: iso(execution.finishedAt),
  }));
  return { ...run, createdAt: iso(run.createdAt), finishedAt: iso(run.finishedAt), executions } as Run;
}
