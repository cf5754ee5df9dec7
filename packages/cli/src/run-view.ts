// Runs and executions for people: the runs table, durations, step and run lines, and the exit
// code a final status becomes. Pure functions of data (the clock comes in as `now`).
import type { Execution, Run } from '@hub/schemas';
import { printable } from './hub-client.js';

export type RunStatus = Run['status'];
export type FinalStatus = Exclude<RunStatus, 'running'>;
export const RUN_STATUSES: readonly RunStatus[] = ['running', 'succeeded', 'failed', 'cancelled', 'timed_out'];
export const RUN_SOURCES: readonly Run['source'][] = ['manual', 'schedule', 'github'];

/** What `hub run --follow` and `hub logs --follow` exit with once the run has ended: one code per final status. */
export const EXIT_CODES: Record<FinalStatus, number> = { succeeded: 0, failed: 1, cancelled: 3, timed_out: 4 };

/** The exit codes of the commands that follow a run to its end; 1 also covers the hub refusing. */
export const FOLLOW_EXIT_CODES = `Exit codes:
  0    the run succeeded
  1    the run failed (a step failed, or its daemon went offline), or the hub refused or
       could not be reached
  2    usage or configuration error: an unknown option, a bad argument, no credential for the hub
  3    the run was cancelled
  4    the run timed out
  130  stopped following with Ctrl-C (SIGINT; 143 for SIGTERM); the run goes on
`;

export function isFinal(status: RunStatus): status is FinalStatus {
  return status !== 'running';
}

/** "<1s", "3s", "2m 5s", "1h 2m", "2d 3h": the two largest units, rounded down. */
export function duration(ms: number): string {
  const seconds = Math.floor(Math.max(0, ms) / 1_000);
  if (seconds < 1) return '<1s';
  const units: [string, number][] = [
    ['d', Math.floor(seconds / 86_400)],
    ['h', Math.floor(seconds / 3_600) % 24],
    ['m', Math.floor(seconds / 60) % 60],
    ['s', seconds % 60],
  ];
  const first = units.findIndex(([, value]) => value > 0);
  return units
    .slice(first, first + 2)
    .filter(([, value], index) => index === 0 || value > 0)
    .map(([unit, value]) => `${value}${unit}`)
    .join(' ');
}

/** "2026-11-24 10:00:05" in the local time zone: to the second, and sortable. */
export function localTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return printable(iso);
  const two = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`;
}

/** A run's status as the table shows it: a running run whose cancellation was asked for is "cancelling". */
export function statusLabel(run: Pick<Run, 'status' | 'cancelRequestedAt'>): string {
  return run.status === 'running' && run.cancelRequestedAt !== null ? 'cancelling' : run.status;
}

/** How long the run took, or has been running so far. */
export function took(run: Pick<Run, 'createdAt' | 'finishedAt'>, now: number): string {
  return duration((run.finishedAt === null ? now : Date.parse(run.finishedAt)) - Date.parse(run.createdAt));
}

const COLUMNS = ['RUN', 'TRIGGER', 'PROJECT', 'ACTOR', 'SOURCE', 'STATUS', 'STARTED', 'TOOK'] as const;

/** One line per run, in columns under a header; the last column is not padded. */
export function runsTable(runs: Run[], now: number): string {
  const rows = [
    [...COLUMNS],
    ...runs.map((run) =>
      [
        run.triggerRunId,
        run.trigger,
        run.projectSlug,
        run.actor,
        run.source,
        statusLabel(run),
        localTime(run.createdAt),
        took(run, now),
      ].map(printable),
    ),
  ];
  const widths = COLUMNS.map((_, column) => Math.max(...rows.map((row) => (row[column] as string).length)));
  return rows
    .map(
      (row) =>
        `${row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] as number))).join('  ')}\n`,
    )
    .join('');
}

/** Before a step's output: which step, on which daemon. */
export function stepHeader(execution: Pick<Execution, 'stepId' | 'daemon' | 'executionId'>): string {
  return `==> step ${printable(execution.stepId)} on daemon ${printable(execution.daemon)} (execution ${printable(execution.executionId)})\n`;
}

/** After a step's output: how it ended ("failed, exit code 3: ..."). */
export function stepEnd(stepId: string, end: Pick<Execution, 'status' | 'exitCode' | 'message'>): string {
  const code = end.exitCode === null ? '' : `, exit code ${end.exitCode}`;
  const message = end.message === null || end.message.trim() === '' ? '' : `: ${printable(end.message.trim())}`;
  return `==> step ${printable(stepId)} ${end.status.replace('_', ' ')}${code}${message}\n`;
}

/** The last line about a run: its status in words. */
export function runStatusLine(run: Pick<Run, 'triggerRunId' | 'status' | 'cancelRequestedAt' | 'message'>): string {
  const id = printable(run.triggerRunId);
  const words: Record<RunStatus, string> = {
    running: run.cancelRequestedAt !== null ? 'is still running; its cancellation was asked for' : 'is still running',
    succeeded: 'succeeded',
    failed: 'failed',
    cancelled: 'was cancelled',
    timed_out: 'timed out',
  };
  // A run that ended without an execution (a schedule's tick whose daemon was offline) says why.
  const why = run.message === undefined ? '' : `: ${printable(run.message).replace(/\.$/, '')}`;
  return `Run ${id} ${words[run.status]}${why}.\n`;
}

/** A command to suggest: with the origin when one was given as an argument (HUB_URL and the login are found again). */
export function suggest(command: string, originArgument: string | undefined): string {
  return originArgument === undefined ? command : `${command} ${originArgument}`;
}
