// The storage the runs pages need: a part of the dashboard's port (DashboardStore extends it).
import type { Request, Response } from 'express';

export type RunStatus = 'running' | 'succeeded' | 'failed' | 'cancelled' | 'timed_out';

/** What started a run: the manual-runs endpoints or the Run form, a schedule's tick, or GitHub. */
export type RunSource = 'manual' | 'schedule' | 'github';
export const RUN_SOURCES: readonly RunSource[] = ['manual', 'schedule', 'github'];

export interface RunRow {
  id: string;
  trigger: string;
  projectSlug: string;
  actor: string;
  source: RunSource;
  status: RunStatus;
  createdAt: Date;
  finishedAt: Date | null;
}

export interface RunList {
  runs: RunRow[];
  /** The cursor of the next (older) page; undefined on the last page. */
  older: string | undefined;
}

export interface ExecutionView {
  id: string;
  stepId: string;
  daemon: string;
  status: string;
  exitCode: number | null;
  message: string | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

/** A run with its executions: what GET /api/v1/runs/{id} answers, and who started and cancelled it. */
export interface RunDetail extends RunRow {
  deliveryKey: string;
  inputs: Record<string, string>;
  executions: ExecutionView[];
  /** For a run no request started, the event that did (a schedule's `scheduledAt`, `cron`, `timezone`). */
  event: Record<string, string> | undefined;
  /** Why it ended without an execution (a schedule's tick whose daemon was offline). */
  message: string | undefined;
  /**
   * Who dispatched it, as people read it: "Ada Lovelace (hub login on laptop)", "API key ci
   * (hub_pk_…)"; for a scheduled run, "its schedule".
   */
  dispatchedBy: string;
  cancelRequestedAt: Date | null;
  /** Who asked for its cancellation, as `dispatchedBy`; null when no one did. */
  cancelledBy: string | null;
}

/** The end of an execution's output, for the page as it is first sent. */
export interface OutputTail {
  text: string;
  /** The seq of the last chunk in `text`; -1 when there is no output yet. */
  lastSeq: number;
  /** Output before `text` that the page does not show (the whole is at the plain-text link). */
  earlier: boolean;
}

export type RunCancellation = 'cancelled' | 'not_found' | { finished: RunStatus };

/** Who reads a live output stream: why their access ended (undefined while it has not), checked as the stream goes. */
export interface OutputReader {
  ended(): Promise<string | undefined>;
  /** The seq to resume after when the request carries no Last-Event-ID. */
  after?: number | undefined;
}

export interface RunsPort {
  /**
   * The organization's runs, newest first, `limit` of them from `cursor` (a cursor from an earlier
   * page) on; only those of `source` when it is given.
   */
  runs(
    organizationId: string,
    page: { cursor: string | undefined; limit: number; source?: RunSource },
  ): Promise<RunList>;
  run(organizationId: string, runId: string): Promise<RunDetail | undefined>;
  /** The last `maxBytes` (about) of the output of the run's execution; undefined when the run has no such execution. */
  outputTail(
    organizationId: string,
    runId: string,
    executionId: string,
    maxBytes: number,
  ): Promise<OutputTail | undefined>;
  /**
   * Answers with the output of the run's execution as the API does: the whole as text, or with
   * `Accept: text/event-stream` the live stream (`output`, `cut` and `end` events, resumed after
   * Last-Event-ID). False, with nothing sent, when the run has no such execution.
   */
  sendOutput(
    organizationId: string,
    runId: string,
    executionId: string,
    req: Request,
    res: Response,
    reader: OutputReader,
  ): Promise<boolean>;
  /** Asks for the run's end, as the API's cancel does, recorded as the person's. */
  cancelRun(accountId: string, organizationId: string, runId: string): Promise<RunCancellation>;
}
