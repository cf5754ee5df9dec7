// The data the daemons and runs pages render: plain values, loaded by the routes.
import type { DaemonRow } from '../ports/daemons.js';
import type { OutputTail, RunDetail, RunRow, RunSource } from '../ports/runs.js';
import type { GitHubReport } from '../ports/github.js';
import type { SessionView } from '../store.js';

export interface DaemonsPageProps {
  session: SessionView;
  daemons: DaemonRow[];
  /** Retired daemons are listed too. */
  retired: boolean;
  page: number;
  more: boolean;
}

export interface RetireDaemonPageProps {
  session: SessionView;
  daemon: Pick<DaemonRow, 'id' | 'name'> & Partial<Pick<DaemonRow, 'enrolledBy'>>;
}

export interface RunsPageProps {
  session: SessionView;
  runs: RunRow[];
  /** The link to the next, older page; undefined on the last one. */
  olderHref: string | undefined;
  /** Not the first page: a link back to the newest runs. */
  paged: boolean;
  /** The runs shown are only those of this source. */
  source: RunSource | undefined;
}

export interface RunPageProps {
  session: SessionView;
  run: RunDetail;
  /** The end of each execution's output, by execution id. */
  tails: Map<string, OutputTail>;
  /** For a run GitHub started: what the hub has told GitHub of it. */
  githubReport?: GitHubReport | undefined;
}

export interface CancelRunPageProps {
  session: SessionView;
  run: RunDetail;
}
