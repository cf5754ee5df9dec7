import type { Sql } from 'postgres';
import type {
  CreatedProject,
  PageRequest,
  Paged,
  ProjectChange,
  ProjectRow,
  ProjectsPort,
  RevisionDetail,
  RevisionSummary,
} from '@hub/dashboard';
import { createProject, setProjectActive } from './service.js';
import { ProjectViewRepository } from './views.js';
import type { RevisionContentRow, RevisionListing } from './views.js';
import { acceptableName, isUuid, normalizeName, SLUG_PATTERN as SLUG } from '@hub/schemas';

const PAGE_MAX = 200;

/** One row more than asked for tells whether another page follows. */
async function paged<T>(page: PageRequest, load: (limit: number, offset: number) => Promise<T[]>): Promise<Paged<T>> {
  const limit = Math.min(Math.max(1, Math.trunc(page.limit)), PAGE_MAX);
  const offset = Math.max(0, Math.trunc(page.offset));
  const rows = await load(limit + 1, offset);
  return { items: rows.slice(0, limit), more: rows.length > limit };
}

const summary = (row: RevisionListing): RevisionSummary => ({
  version: row.version,
  installedAt: row.installedAt,
  active: row.active,
  installedBy: { keyName: row.keyName, keyPrefix: row.keyPrefix, keyKind: row.keyKind, accountName: row.accountName },
});

function detail(row: RevisionContentRow): RevisionDetail {
  const content =
    row.shape === 'configuration'
      ? { shape: 'configuration' as const, yaml: row.yaml ?? '', partials: row.partials ?? [] }
      : { shape: 'bundle' as const, files: row.files ?? [] };
  return { ...summary(row), content };
}

export async function projects(sql: Sql, organizationId: string, page: PageRequest): Promise<Paged<ProjectRow>> {
  if (!isUuid(organizationId)) return { items: [], more: false };
  const views = new ProjectViewRepository(sql);
  return paged(page, (limit, offset) => views.projects(organizationId, limit, offset));
}

export async function project(sql: Sql, organizationId: string, slug: string): Promise<ProjectRow | undefined> {
  if (!isUuid(organizationId) || !SLUG.test(slug)) return undefined;
  return new ProjectViewRepository(sql).project(organizationId, slug);
}

export async function revisions(
  sql: Sql,
  organizationId: string,
  slug: string,
  page: PageRequest,
): Promise<Paged<RevisionSummary>> {
  if (!isUuid(organizationId) || !SLUG.test(slug)) return { items: [], more: false };
  const views = new ProjectViewRepository(sql);
  const listed = await paged(page, (limit, offset) => views.revisions(organizationId, slug, limit, offset));
  return { items: listed.items.map(summary), more: listed.more };
}

export async function revision(
  sql: Sql,
  organizationId: string,
  slug: string,
  version: number,
): Promise<RevisionDetail | undefined> {
  if (
    !isUuid(organizationId) ||
    !SLUG.test(slug) ||
    !Number.isSafeInteger(version) ||
    version < 1 ||
    version > 2 ** 31 - 1
  )
    return undefined;
  const row = await new ProjectViewRepository(sql).revision(organizationId, slug, version);
  return row && detail(row);
}

/** The projects part of the dashboard's store. */
export function projectStore(sql: Sql): ProjectsPort {
  return {
    projects: (organizationId, page) => projects(sql, organizationId, page),
    project: (organizationId, slug) => project(sql, organizationId, slug),
    revisions: (organizationId, slug, page) => revisions(sql, organizationId, slug, page),
    revision: (organizationId, slug, version) => revision(sql, organizationId, slug, version),
    async createProject(accountId, organizationId, input): Promise<CreatedProject> {
      // The form's rules (a name normalized, then 1 to 200 characters), not the operator API's document's.
      const name = normalizeName(input.name);
      if (!SLUG.test(input.slug) || !acceptableName(name)) return 'invalid';
      const created = await createProject(sql, { kind: 'account', id: accountId }, organizationId, {
        slug: input.slug,
        name,
      });
      return created.ok ? 'created' : created.reason === 'exists' ? 'taken' : 'forbidden';
    },
    async setProjectActive(accountId, organizationId, slug, active): Promise<ProjectChange> {
      const changed = await setProjectActive(sql, { kind: 'account', id: accountId }, organizationId, slug, active);
      return changed.ok ? 'done' : changed.reason;
    },
  };
}
