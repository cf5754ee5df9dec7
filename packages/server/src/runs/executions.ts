import type { TransactionSql } from 'postgres';
import { countCompleted, dispatchToAssignment } from '../metrics/index.js';
import type { Db } from '../db/connect.js';
import { atomically } from '../db/transaction.js';
import { ASSIGNMENT_CHANNEL } from './protocol/channels.js';
import type { Assignment, PlannedStep } from './dispatch/model.js';

export type ExecutionStatus = 'spawning' | 'running' | 'succeeded' | 'failed' | 'timed_out' | 'cancelled' | 'lost';
export type ReportedStatus = Exclude<ExecutionStatus, 'spawning' | 'lost'>;

/** Rows a statement of the lost or the timed-out sweep changes at most (each sweep loops until done). */
export const SWEEP_BATCH = 500;

/** Executions: offered to their daemon, reported on, swept when no daemon will report. */
export class ExecutionRepository {
  constructor(
    private readonly sql: Db,
    private readonly timing: { offlineAfterMs: number; redeliverAfterMs: number; timeoutGraceMs: number },
  ) {}

  /**
   * The daemon's oldest assignment that is not yet offered, or was offered and not marked running
   * within the redelivery time: marked offered, and returned. Concurrent polls never get the same
   * one (SKIP LOCKED).
   */
  async claim(daemonId: string): Promise<Assignment | undefined> {
    const [row] = await this.sql<{ assignment: Assignment; offers: number; waitedS: number }[]>`
      update executions set offered_at = now(), offers = offers + 1
      where id = (
        select id from executions
        where daemon_id = ${daemonId} and status = 'spawning'
          and (offered_at is null or offered_at <= now() - ${this.timing.redeliverAfterMs} * interval '1 millisecond')
        order by created_at limit 1
        for update skip locked)
      returning assignment, offers, extract(epoch from clock_timestamp() - created_at)::float8 as "waitedS"`;
    // Timed once, at the first offer; a redelivery is the same dispatch, not a new one.
    if (row?.offers === 1) dispatchToAssignment.observe(Math.max(0, row.waitedS));
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
    const lost = await this.sweepLost();
    const timedOut = await this.sweepTimedOut();
    await this.sql`delete from daemon_nonces where seen_at < now() - interval '3 minutes'`;
    return { lost, timedOut };
  }

  /**
   * Offline daemons' executions, `SWEEP_BATCH` at a time, each batch a statement of its own (25k
   * queued executions are 50 short statements, not one that holds 25k rows). Returns the runs
   * that failed.
   */
  /**
   * A sweep's statement, planned without bitmap scans. Its plans must not depend on statistics
   * (taken on empty tables where autovacuum is off, they make every partial index look tiny):
   * a bitmap scan reads all of an index's entries before any limit, and never marks the dead
   * ones (rows that have left a partial index of running rows stay in it until a vacuum); a
   * plain index scan stops at the limit or the first row not yet due, and marks the dead
   * entries it passes so that the next scan skips them.
   */
  private indexed<T>(statement: (tx: TransactionSql) => Promise<T>): Promise<T> {
    return atomically(this.sql, async (tx) => {
      await tx`set local enable_bitmapscan = off`;
      return statement(tx);
    });
  }

  async sweepLost(): Promise<number> {
    let runs = 0;
    for (;;) {
      const batch = await this.sweepLostBatch();
      runs += batch.runs;
      if (batch.executions < SWEEP_BATCH) return runs;
    }
  }

  /**
   * Up to `SWEEP_BATCH` executions of offline daemons become `lost`, and their runs `failed`.
   * Rows another transaction holds (a report, another instance's batch) are skipped: theirs, or
   * the next sweep's. Each batch looks at the daemons again, so one back meanwhile keeps the rest.
   * Each daemon's executions are read from its index entries with a limit (not a bitmap of all of
   * them), and the runs by primary key: a batch reads about what it changes.
   */
  async sweepLostBatch(): Promise<{ executions: number; runs: number }> {
    const { offlineAfterMs } = this.timing;
    const [row] = await this.indexed(
      (tx) => tx<{ executions: number; runs: number }[]>`
      with batch as (
        select e.id from daemons d
        cross join lateral (
          select e.id from executions e
          where e.daemon_id = d.id and e.status in ('spawning', 'running')
          limit ${SWEEP_BATCH}
          for update skip locked) e
        where coalesce(d.last_seen_at, '-infinity') <= now() - ${offlineAfterMs} * interval '1 millisecond'
        limit ${SWEEP_BATCH}
      ), lost as (
        update executions e set status = 'lost', finished_at = now(),
          message = 'The daemon went offline: no heartbeat or long-poll within ' || ${offlineAfterMs / 1000} || ' s.'
        where e.id = any(array(select id from batch))
        returning e.trigger_run_id
      ), failed as (
        update trigger_runs set status = 'failed', finished_at = now()
        where id = any(array(select trigger_run_id from lost)) and status = 'running'
        returning id
      )
      select (select count(*) from lost)::int as executions, (select count(*) from failed)::int as runs`,
    );
    if (row !== undefined) countCompleted('failed', row.runs);
    return row ?? { executions: 0, runs: 0 };
  }

  /** Executions and runs past their max_runtime plus the grace, `SWEEP_BATCH` of each at a time. Returns the runs timed out. */
  async sweepTimedOut(): Promise<number> {
    let runs = 0;
    for (;;) {
      const batch = await this.sweepTimedOutBatch();
      runs += batch.runs;
      if (batch.executions < SWEEP_BATCH && batch.overdue < SWEEP_BATCH) return runs;
    }
  }

  /**
   * Running executions past their step's max_runtime plus the grace become `timed_out`, with
   * their runs; so do running runs past their trigger's max_runtime plus the grace, with their
   * executions in flight. Both are read in deadline order from the indexes of running rows'
   * deadlines (hub_deadline, migration 010; the expressions must stay as the indexes have them),
   * stopping at the first not yet due; rows another transaction holds are skipped, as above.
   */
  async sweepTimedOutBatch(): Promise<{ executions: number; overdue: number; runs: number }> {
    const { timeoutGraceMs } = this.timing;
    // Running rows of `table` past their deadline plus the grace, a batch in deadline order.
    const pastDeadline = (tx: TransactionSql, table: string, since: string) => tx`
        select id from ${tx(table)}
        where status = 'running' and hub_deadline(${tx(since)}, max_runtime_ms) <= now() - ${timeoutGraceMs} * interval '1 millisecond'
        order by hub_deadline(${tx(since)}, max_runtime_ms)
        limit ${SWEEP_BATCH}
        for update skip locked`;
    const [row] = await this.indexed(
      (tx) => tx<{ executions: number; overdue: number; runs: number }[]>`
      with due as (${pastDeadline(tx, 'executions', 'started_at')}), late as (
        update executions e set status = 'timed_out', finished_at = now(),
          message = 'The daemon did not report the end of the execution within its max_runtime.'
        where e.id = any(array(select id from due))
        returning e.trigger_run_id
      ), overdue as (${pastDeadline(tx, 'trigger_runs', 'created_at')}), late_runs as (
        update trigger_runs r set status = 'timed_out', finished_at = now()
        where r.status = 'running' and r.id = any(array(select trigger_run_id from late union select id from overdue))
        returning r.id
      ), stopped as (
        update executions e set status = 'timed_out', finished_at = now(), message = 'The run reached its max_runtime.'
        from late_runs r
        where e.trigger_run_id = r.id and e.status in ('spawning', 'running')
          and e.trigger_run_id <> all(array(select trigger_run_id from late))
        returning 1
      )
      select (select count(*) from late)::int as executions, (select count(*) from overdue)::int as overdue, (select count(*) from late_runs)::int as runs`,
    );
    if (row !== undefined) countCompleted('timed_out', row.runs);
    return row ?? { executions: 0, overdue: 0, runs: 0 };
  }
}

// The statements of a status report's transaction (runs/protocol/report.ts decides between them).

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
): Promise<
  | { status: string; plan: PlannedStep[]; inputs: Record<string, string>; actor: string; organizationId: string }
  | undefined
> {
  const [run] = await tx<
    { status: string; plan: PlannedStep[]; inputs: Record<string, string>; actor: string; organizationId: string }[]
  >`
    select status, plan, inputs, actor, organization_id as "organizationId" from trigger_runs where id = ${triggerRunId} for update`;
  return run;
}

export async function endRun(tx: TransactionSql, triggerRunId: string, status: string): Promise<void> {
  await tx`update trigger_runs set status = ${status}, finished_at = now() where id = ${triggerRunId}`;
  countCompleted(status);
}

/** The organization's active daemon of that name, if any. */
export async function activeDaemonId(
  tx: TransactionSql,
  organizationId: string,
  name: string,
): Promise<string | undefined> {
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
