// The storage the runs pages need: a part of the dashboard's port (DashboardStore extends it).

export type RunStatus = 'running' | 'succeeded' | 'failed' | 'cancelled' | 'timed_out';

export interface RunRow {
  id: string;
  trigger: string;
  projectSlug: string;
  actor: string;
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

/** A run with its executions: what GET /api/v1/runs/{id} answers. */
export interface RunDetail extends RunRow {
  deliveryKey: string;
  inputs: Record<string, string>;
  executions: ExecutionView[];
}

export interface RunsPort {
  /** The organization's runs, newest first, `limit` of them from `cursor` (a cursor from an earlier page) on. */
  runs(organizationId: string, page: { cursor: string | undefined; limit: number }): Promise<RunList>;
  run(organizationId: string, runId: string): Promise<RunDetail | undefined>;
}
