import type { Sql, TransactionSql } from 'postgres';
import {
  activeDaemonId,
  endRun,
  finishExecution,
  insertExecution,
  lockExecution,
  lockRun,
  markRunning,
  type ExecutionStatus,
  type ReportedStatus,
} from '../executions.js';
import { assignmentOf } from '../dispatch/plan.js';
import { afterExecution, judgeReport } from '../states.js';

export type ReportResult =
  | { ok: true; status: ExecutionStatus }
  | { ok: false; reason: 'not_found' }
  | { ok: false; reason: 'finished'; status: ExecutionStatus };

/**
 * A daemon's report on one of its executions, in one transaction. `running` acknowledges the
 * assignment; a final status ends the execution and moves the run on: the next step's execution
 * (and a NOTIFY for its daemon), or the run's own end. Repeating the current status is accepted;
 * changing a finished execution is not (`finished`), nor reporting on another daemon's (`not_found`).
 */
export async function reportStatus(
  sql: Sql,
  daemonId: string,
  executionId: string,
  status: ReportedStatus,
  detail: { exitCode?: number; message?: string },
): Promise<ReportResult> {
  return sql.begin(async (tx) => {
    const execution = await lockExecution(tx, daemonId, executionId);
    if (execution === undefined) return { ok: false, reason: 'not_found' } as const;
    const verdict = judgeReport(execution.status, status);
    if (verdict === 'same') return { ok: true, status } as const;
    if (verdict === 'refused') return { ok: false, reason: 'finished', status: execution.status } as const;
    if (verdict === 'start') {
      await markRunning(tx, executionId);
      return { ok: true, status } as const;
    }
    await finishExecution(tx, executionId, status, detail);
    await advance(tx, execution.triggerRunId, execution.stepIndex, status);
    return { ok: true, status } as const;
  });
}

/** After an execution ends: the next step, or the run's end. */
async function advance(
  tx: TransactionSql,
  triggerRunId: string,
  stepIndex: number,
  status: ReportedStatus,
): Promise<void> {
  const run = await lockRun(tx, triggerRunId);
  const after = afterExecution(run, stepIndex, status);
  if (run === undefined || after.kind === 'nothing') return;
  if (after.kind === 'end') {
    await endRun(tx, triggerRunId, after.status);
    return;
  }
  const daemonId = await activeDaemonId(tx, run.organizationId, after.step.daemon);
  if (daemonId === undefined) {
    // Its daemon was retired since the dispatch, with no successor of the same name.
    await endRun(tx, triggerRunId, 'failed');
    return;
  }
  const executionId = crypto.randomUUID();
  await insertExecution(tx, {
    executionId,
    triggerRunId,
    stepIndex: after.stepIndex,
    daemonId,
    assignment: assignmentOf(after.step, { executionId, triggerRunId, inputs: run.inputs, actor: run.actor }),
  });
}
