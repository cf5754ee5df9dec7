import type { Sql, TransactionSql } from 'postgres';
import { ASSIGNMENT_CHANNEL } from './channels.js';
import type { Assignment, PlannedStep } from './runs.js';

export type ExecutionStatus = 'spawning' | 'running' | 'succeeded' | 'failed' | 'timed_out' | 'cancelled' | 'lost';
export type ReportedStatus = Exclude<ExecutionStatus, 'spawning' | 'lost'>;

/** Executions: offered to their daemon, reported on, swept when no daemon will report. */
export class ExecutionRepository {
  constructor(
    private readonly sql: Sql,
    private readonly timing: { offlineAfterMs: number; redeliverAfterMs: number; timeoutGraceMs: number },
  ) {}

  /**
   * The daemon's oldest assignment that is not yet offered, or was offered and not marked running
   * within the redelivery time: marked offered, and returned. Concurrent polls never get the same
   * one (SKIP LOCKED).
   */
  async claim(daemonId: string): Promise<Assignment | undefined> {
    const [row] = await this.sql<{ assignment: Assignment }[]>`
      update executions set offered_at = now(), offers = offers + 1
      where id = (
        select id from executions
        where daemon_id = ${daemonId} and status = 'spawning'
          and (offered_at is null or offered_at <= now() - ${this.timing.redeliverAfterMs} * interval '1 millisecond')
        order by created_at limit 1
        for update skip locked)
      returning assignment`;
    return row?.assignment;
  }

  /** Milliseconds until one of the daemon's offered assignments may be offered again, if any. */
  async untilRedelivery(daemonId: string): Promise<number | undefined> {
    const [row] = await this.sql<{ ms: number | null }[]>`
      select extract(epoch from (min(offered_at) + ${this.timing.redeliverAfterMs} * interval '1 millisecond' - now())) * 1000 as ms
      from executions where daemon_id = ${daemonId} and status = 'spawning' and offered_at is not null`;
    return row?.ms === null || row?.ms === undefined ? undefined : Math.max(0, Number(row.ms));
  }

  /**
   * What no daemon will report: executions whose daemon went offline become `lost` (their run
   * `failed`); executions running past max_runtime plus the grace, and runs past their
   * trigger's max_runtime plus the grace, become `timed_out`. Old nonces are forgotten. Every
   * instance sweeps; each statement is safe to run concurrently.
   */
  async sweep(): Promise<{ lost: number; timedOut: number }> {
    const { offlineAfterMs, timeoutGraceMs } = this.timing;
    const lost = await this.sql`
      with lost as (
        update executions e set status = 'lost', finished_at = now(),
          message = 'The daemon went offline: no heartbeat or long-poll within ' || ${offlineAfterMs / 1000} || ' s.'
        from daemons d
        where d.id = e.daemon_id and e.status in ('spawning', 'running')
          and coalesce(d.last_seen_at, '-infinity') <= now() - ${offlineAfterMs} * interval '1 millisecond'
        returning e.trigger_run_id)
      update trigger_runs set status = 'failed', finished_at = now()
      where id in (select trigger_run_id from lost) and status = 'running'
      returning id`;
    const timedOut = await this.sql`
      with late as (
        update executions e set status = 'timed_out', finished_at = now(),
          message = 'The daemon did not report the end of the execution within its max_runtime.'
        where e.status = 'running' and e.started_at + (e.max_runtime_ms + ${timeoutGraceMs}) * interval '1 millisecond' <= now()
        returning e.trigger_run_id
      ), late_runs as (
        update trigger_runs r set status = 'timed_out', finished_at = now()
        where r.status = 'running' and (r.id in (select trigger_run_id from late)
          or r.created_at + (r.max_runtime_ms + ${timeoutGraceMs}) * interval '1 millisecond' <= now())
        returning r.id
      ), stopped as (
        update executions e set status = 'timed_out', finished_at = now(), message = 'The run reached its max_runtime.'
        where e.trigger_run_id in (select id from late_runs) and e.status in ('spawning', 'running')
          and e.trigger_run_id not in (select trigger_run_id from late)
        returning 1
      )
      select id from late_runs`;
    await this.sql`delete from daemon_nonces where seen_at < now() - interval '3 minutes'`;
    return { lost: lost.length, timedOut: timedOut.length };
  }
}

// The statements of a status report's transaction (dispatch/executions.ts decides between them).

/** The daemon's execution, locked for the report; undefined when it is not this daemon's. */
export async function lockExecution(
  tx: TransactionSql,
  daemonId: string,
  executionId: string,
): Promise<{ status: ExecutionStatus; stepIndex: number; triggerRunId: string } | undefined> {
  const [execution] = await tx<{ status: ExecutionStatus; stepIndex: number; triggerRunId: string }[]>`
    select status, step_index as "stepIndex", trigger_run_id as "triggerRunId"
    from executions where id = ${executionId} and daemon_id = ${daemonId} for update`;
  return execution;
}

export async function markRunning(tx: TransactionSql, executionId: string): Promise<void> {
  await tx`update executions set status = 'running', started_at = now() where id = ${executionId}`;
}

export async function finishExecution(
  tx: TransactionSql,
  executionId: string,
  status: ReportedStatus,
  detail: { exitCode?: number; message?: string },
): Promise<void> {
  await tx`
    update executions set status = ${status}, finished_at = now(), exit_code = ${detail.exitCode ?? null}, message = ${detail.message ?? null},
      started_at = coalesce(started_at, now())
    where id = ${executionId}`;
}

/** The run, locked while its next step is decided. */
export async function lockRun(
  tx: TransactionSql,
  triggerRunId: string,
): Promise<{ status: string; plan: PlannedStep[]; inputs: Record<string, string>; actor: string; organizationId: string } | undefined> {
  const [run] = await tx<{ status: string; plan: PlannedStep[]; inputs: Record<string, string>; actor: string; organizationId: string }[]>`
    select status, plan, inputs, actor, organization_id as "organizationId" from trigger_runs where id = ${triggerRunId} for update`;
  return run;
}

export async function endRun(tx: TransactionSql, triggerRunId: string, status: string): Promise<void> {
  await tx`update trigger_runs set status = ${status}, finished_at = now() where id = ${triggerRunId}`;
}

/** The organization's active daemon of that name, if any. */
export async function activeDaemonId(tx: TransactionSql, organizationId: string, name: string): Promise<string | undefined> {
  const [daemon] = await tx<{ id: string }[]>`
    select id from daemons where organization_id = ${organizationId} and name = ${name} and retired_at is null`;
  return daemon?.id;
}

/** A step's execution, and a NOTIFY that wakes its daemon's long-poll (delivered on commit). */
export async function insertExecution(
  tx: TransactionSql,
  execution: { executionId: string; triggerRunId: string; stepIndex: number; daemonId: string; assignment: Assignment },
): Promise<void> {
  await tx`
    insert into executions (id, trigger_run_id, step_index, step_id, daemon_id, assignment, max_runtime_ms)
    values (${execution.executionId}, ${execution.triggerRunId}, ${execution.stepIndex}, ${execution.assignment.stepId},
      ${execution.daemonId}, ${tx.json(execution.assignment as never)}, ${execution.assignment.maxRuntimeMs})`;
  await tx`select pg_notify(${ASSIGNMENT_CHANNEL}, ${execution.daemonId})`;
}
