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
import { AccountRepository } from '../people/sql/accounts.js';
import { OrganizationRepository } from './sql.js';
import { ProjectViewRepository } from './views.js';
import type { RevisionContentRow, RevisionListing } from './views.js';
import { acceptableName, isUuid, normalizeName, SLUG } from '../people/input.js';

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
  installedBy: { keyName: row.keyName, keyPrefix: row.keyPrefix, accountName: row.accountName },
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

/** An owner's new project: the role check (holding the membership FOR SHARE) and the insert in one transaction. */
export async function createProject(
  sql: Sql,
  accountId: string,
  organizationId: string,
  input: { slug: string; name: string },
): Promise<CreatedProject> {
  if (!isUuid(accountId) || !isUuid(organizationId)) return 'forbidden';
  const name = normalizeName(input.name);
  if (!SLUG.test(input.slug) || !acceptableName(name)) return 'invalid';
  return sql.begin(async (tx): Promise<CreatedProject> => {
    if ((await new AccountRepository(tx).role(organizationId, accountId)) !== 'owner') return 'forbidden';
    // The repository takes the hub's Sql; it only runs tagged queries, which a transaction runs alike.
    const created = await new OrganizationRepository(tx as unknown as Sql).createProject(
      organizationId,
      input.slug,
      name,
    );
    return created ? 'created' : 'taken';
  });
}

/** Deactivation is the operator API's own (keys stop seeing the project); reactivation undoes it. */
export async function setProjectActive(
  sql: Sql,
  accountId: string,
  organizationId: string,
  slug: string,
  active: boolean,
): Promise<ProjectChange> {
  if (!isUuid(accountId) || !isUuid(organizationId)) return 'forbidden';
  return sql.begin(async (tx): Promise<ProjectChange> => {
    if ((await new AccountRepository(tx).role(organizationId, accountId)) !== 'owner') return 'forbidden';
    if (!SLUG.test(slug)) return 'not_found';
    const organizations = new OrganizationRepository(tx as unknown as Sql);
    const changed = active
      ? await organizations.reactivateProject(organizationId, slug)
      : await organizations.deactivateProject(organizationId, slug);
    return changed ? 'done' : 'not_found';
  });
}

/** The projects part of the dashboard's store. */
export function projectStore(sql: Sql): ProjectsPort {
  return {
    projects: (organizationId, page) => projects(sql, organizationId, page),
    project: (organizationId, slug) => project(sql, organizationId, slug),
    revisions: (organizationId, slug, page) => revisions(sql, organizationId, slug, page),
    revision: (organizationId, slug, version) => revision(sql, organizationId, slug, version),
    createProject: (accountId, organizationId, input) => createProject(sql, accountId, organizationId, input),
    setProjectActive: (accountId, organizationId, slug, active) =>
      setProjectActive(sql, accountId, organizationId, slug, active),
  };
}
