import type { RunRow } from '../ports/runs.js';
import type { TriggerView } from '../ports/work.js';
// The data the projects pages render: plain values, loaded by routes/projects.ts.
import type { ProjectRow, RevisionDetail, RevisionSummary } from '../ports/projects.js';
import type { SessionView } from '../store.js';

/** Where a list is: its 1-based page, and whether pages come before and after. */
export interface PageLinks {
  page: number;
  more: boolean;
}

export interface ProjectFormValues {
  slug: string;
  name: string;
  message?: string | undefined;
}

export interface ProjectsPageProps {
  session: SessionView;
  projects: ProjectRow[];
  pages: PageLinks;
  form?: ProjectFormValues | undefined;
}

export interface ProjectPageProps {
  session: SessionView;
  project: ProjectRow;
  /** The active revision, when it is on another page of the history too. */
  active: RevisionSummary | undefined;
  revisions: RevisionSummary[];
  pages: PageLinks;
  /** What the active configuration defines. */
  triggers: TriggerView[];
  recentRuns: RunRow[];
  /** A Run form sent back with what held the run back. */
  runForm?: RunFormState | undefined;
  /** The delivery key of this page's Run forms: the same form sent twice starts one run. */
  deliveryKey: string;
  /** Where GitHub's pages are (a repository's link); undefined when GitHub is off on this hub. */
  githubWebUrl?: string | undefined;
  /** The repository form sent back with what held it back. */
  repositoryForm?: RepositoryFormState | undefined;
}

export interface RepositoryFormState {
  value: string;
  message: string;
}

export interface RunFormState {
  trigger: string;
  /** The fields as sent: `actor`, `prompt`, `deliveryKey`, and `input.<name>` for each input. */
  values: Record<string, string>;
  message: string;
  /** The input (or `actor`) at fault, when one is. */
  field?: string | undefined;
}

export interface RevisionPageProps {
  session: SessionView;
  project: ProjectRow;
  revision: RevisionDetail;
}

export interface ProjectChangePageProps {
  session: SessionView;
  project: Pick<ProjectRow, 'slug' | 'name'>;
  change: 'deactivate' | 'reactivate';
}
