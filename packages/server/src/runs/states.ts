import type { ExecutionStatus, ReportedStatus } from './executions.js';

/**
 * The execution state machine (DECISIONS.md, Dispatch), as pure functions: an execution is
 * `spawning`, `running`, then final; steps run in order and a step that does not succeed ends
 * its run.
 */
export const FINAL_STATUSES: readonly ExecutionStatus[] = ['succeeded', 'failed', 'timed_out', 'cancelled', 'lost'];

export type RunEndStatus = 'succeeded' | 'failed' | 'timed_out' | 'cancelled';

export function isFinal(status: ExecutionStatus): boolean {
  return FINAL_STATUSES.includes(status);
}

/**
 * What a daemon's report does to its execution: repeating the current status is accepted and
 * changes nothing (`same`); a finished execution no longer changes, and `running` only follows
 * `spawning` (`refused`); else the execution starts or ends.
 */
export function judgeReport(current: ExecutionStatus, reported: ReportedStatus): 'same' | 'refused' | 'start' | 'end' {
  if (current === reported) return 'same';
  if (isFinal(current) || (reported === 'running' && current !== 'spawning')) return 'refused';
  return reported === 'running' ? 'start' : 'end';
}

export type AfterExecution<Step> =
  { kind: 'nothing' } | { kind: 'end'; status: RunEndStatus } | { kind: 'next'; stepIndex: number; step: Step };

/**
 * What follows the end of the execution of step `stepIndex`: nothing when the run already
 * ended, the run's end when the step did not succeed or was the last, else the next step.
 */
export function afterExecution<Step>(
  run: { status: string; plan: readonly Step[] } | undefined,
  stepIndex: number,
  ended: ReportedStatus,
): AfterExecution<Step> {
  if (run === undefined || run.status !== 'running') return { kind: 'nothing' };
  if (ended !== 'succeeded')
    return {
      kind: 'end',
      status: ended === 'timed_out' ? 'timed_out' : ended === 'cancelled' ? 'cancelled' : 'failed',
    };
  const step = run.plan[stepIndex + 1];
  if (step === undefined) return { kind: 'end', status: 'succeeded' };
  return { kind: 'next', stepIndex: stepIndex + 1, step };
}
