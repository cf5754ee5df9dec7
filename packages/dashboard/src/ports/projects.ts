// The storage the projects pages need: a part of the dashboard's port (DashboardStore extends it).

export interface ProjectRow {
  slug: string;
  name: string;
  active: boolean;
  createdAt: Date;
  /** The active configuration revision's version and install time; null before the first install. */
  activeVersion: number | null;
  installedAt: Date | null;
  /** The GitHub repository it names (`owner/name`), or null. */
  repository: string | null;
}

/** Who installed a revision: always a key, an API key or a person's CLI login; the account that made it, if one did. */
export interface Installer {
  keyName: string;
  keyPrefix: string;
  keyKind: 'api_key' | 'cli';
  accountName: string | null;
}

export interface RevisionSummary {
  version: number;
  installedAt: Date;
  active: boolean;
  installedBy: Installer;
}

export interface StoredFile {
  path: string;
  content: string;
}

/** What was installed, as stored: a configuration (YAML and its partials) or a legacy bundle's files. */
export type RevisionContent =
  { shape: 'configuration'; yaml: string; partials: StoredFile[] } | { shape: 'bundle'; files: StoredFile[] };

export interface RevisionDetail extends RevisionSummary {
  content: RevisionContent;
}

/** One page of a list: its rows, and whether another page follows. */
export interface Paged<T> {
  items: T[];
  more: boolean;
}

export interface PageRequest {
  offset: number;
  limit: number;
}

export type ProjectChange = 'done' | 'not_found' | 'forbidden';
export type CreatedProject = 'created' | 'taken' | 'invalid' | 'forbidden';

export interface ProjectsPort {
  projects(organizationId: string, page: PageRequest): Promise<Paged<ProjectRow>>;
  project(organizationId: string, slug: string): Promise<ProjectRow | undefined>;
  /** The project's revisions, newest first. */
  revisions(organizationId: string, slug: string, page: PageRequest): Promise<Paged<RevisionSummary>>;
  revision(organizationId: string, slug: string, version: number): Promise<RevisionDetail | undefined>;
  /** An owner's new project; `taken` when the organization has one of this slug. */
  createProject(
    accountId: string,
    organizationId: string,
    project: { slug: string; name: string },
  ): Promise<CreatedProject>;
  /** An owner deactivates (it vanishes from the API for keys) or reactivates a project. */
  setProjectActive(accountId: string, organizationId: string, slug: string, active: boolean): Promise<ProjectChange>;
}
