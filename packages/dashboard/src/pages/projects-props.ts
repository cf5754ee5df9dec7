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
