// Cancelling a run: asked for through the API, carried to the daemon by its long-poll, ended by
// the daemon's `cancelled` report (runs/protocol/report.ts). Asked for by a key (the API) or a person
// (the dashboard): the first to ask is recorded. An execution no daemon has started is
// cancelled by the hub itself.
import type { Sql, TransactionSql } from 'postgres';
import { AuditRepository } from '../audit/index.js';
import { ASSIGNMENT_CHANNEL } from './protocol/channels.js';
import { endRun, finishExecution, lockRun } from './executions.js';

/** A cancellation is offered to the daemon again after this long without its report. */
export const CANCEL_RESEND_S = 10;

export type CancelResult =
  { ok: true } | { ok: false; reason: 'not_found' } | { ok: false; reason: 'finished'; status: string };

/**
 * Asks for the run's end: its executions in flight are marked, and their daemons' long-polls
 * woken (NOTIFY on commit); one not yet offered to its daemon is cancelled here and then, with
 * the run. Locks executions before the run, as status reports do. Who asked is recorded.
 */
export async function cancelRun(
  sql: Sql,
  organizationId: string,
  triggerRunId: string,
  by: { kind: 'key'; id: string } | { kind: 'account'; id: string },
): Promise<CancelResult> {
  return sql.begin(async (tx): Promise<CancelResult> => {
    const [run] = await tx<{ trigger: string; projectSlug: string }[]>`
      -- By its primary key alone, the organization checked after (see runs/run-view.ts, byId).
      with one as materialized (select trigger_name, project_id, organization_id from trigger_runs where id = ${triggerRunId})
      select r.trigger_name as trigger, p.slug as "projectSlug" from one r join projects p on p.id = r.project_id
      where r.organization_id = ${organizationId}`;
    if (run === undefined) return { ok: false, reason: 'not_found' };
    const inFlight = await tx<{ id: string; daemonId: string; status: string; offered: boolean }[]>`
      select id, daemon_id as "daemonId", status, offered_at is not null as offered from executions
      where trigger_run_id = ${triggerRunId} and status in ('spawning', 'running')
      order by step_index for update`;
    const locked = await lockRun(tx, triggerRunId);
    if (locked === undefined) return { ok: false, reason: 'not_found' };
    if (locked.status !== 'running') return { ok: false, reason: 'finished', status: locked.status };
    await tx`
      update trigger_runs set cancel_requested_at = coalesce(cancel_requested_at, now()),
        cancelled_by_api_key_id = case when cancel_requested_at is null then ${by.kind === 'key' ? by.id : null}::uuid
          else cancelled_by_api_key_id end,
        cancelled_by_account = case when cancel_requested_at is null then ${by.kind === 'account' ? by.id : null}::uuid
          else cancelled_by_account end
      where id = ${triggerRunId}`;
    let ended = inFlight.length === 0;
    for (const execution of inFlight) {
      if (execution.status === 'spawning' && !execution.offered) {
        await finishExecution(tx, execution.id, 'cancelled', { message: 'Cancelled before its daemon took it.' });
        ended = true;
        continue;
      }
      await tx`update executions set cancel_requested_at = now(), cancel_sent_at = null where id = ${execution.id}`;
      await tx`select pg_notify(${ASSIGNMENT_CHANNEL}, ${execution.daemonId})`;
    }
    if (ended) await endRun(tx, triggerRunId, 'cancelled');
    await new AuditRepository(tx).record(organizationId, 'run.cancelled', by, {
      runId: triggerRunId,
      trigger: run.trigger,
      projectSlug: run.projectSlug,
    });
    return { ok: true };
  });
}

/**
 * The daemon's executions to stop, taken for its long-poll's answer: asked for and not offered
 * in the last CANCEL_RESEND_S. One the daemon never acknowledged (still `spawning`) ends
 * `cancelled` here, with its run: if the daemon did start it, this answer stops it.
 */
export async function takeCancellations(sql: Sql, daemonId: string): Promise<string[]> {
  // Almost always none: one indexed look, not a transaction, on every long-poll's way to its assignment.
  const [due] = await sql`
    select 1 from executions
    where daemon_id = ${daemonId} and cancel_requested_at is not null and status in ('spawning', 'running')
      and (cancel_sent_at is null or cancel_sent_at <= now() - ${CANCEL_RESEND_S} * interval '1 second')
    limit 1`;
  if (due === undefined) return [];
  return sql.begin(async (tx) => {
    const taken = await tx<{ id: string; status: string; triggerRunId: string }[]>`
      update executions set cancel_sent_at = now()
      where id in (
        select id from executions
        where daemon_id = ${daemonId} and cancel_requested_at is not null and status in ('spawning', 'running')
          and (cancel_sent_at is null or cancel_sent_at <= now() - ${CANCEL_RESEND_S} * interval '1 second')
        -- Not SKIP LOCKED: an output append holds the row for a moment, and skipping it would
        -- leave the cancellation for the next look. Waiting, the recheck sees another poll's take.
        for update)
      returning id, status, trigger_run_id as "triggerRunId"`;
    for (const execution of taken.filter((row) => row.status === 'spawning'))
      await endUnstarted(tx, execution.id, execution.triggerRunId);
    return taken.map((row) => row.id);
  });
}

async function endUnstarted(tx: TransactionSql, executionId: string, triggerRunId: string): Promise<void> {
  await finishExecution(tx, executionId, 'cancelled', { message: 'Cancelled before its daemon started it.' });
  const run = await lockRun(tx, triggerRunId);
  if (run?.status === 'running') await endRun(tx, triggerRunId, 'cancelled');
}
