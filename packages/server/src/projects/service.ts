import type { Sql } from 'postgres';
import type { Db } from '../db/connect.js';
import { SLUG_PATTERN as SLUG } from '@hub/schemas';
import { AuditRepository } from '../audit/index.js';
import { atomically } from '../db/transaction.js';
import { asOwner, type Changer, type Forbidden } from './owners.js';
import { OrganizationRepository, type Organization, type Project } from './sql.js';

// The use cases of organizations and projects, shared by the operator API (operator-routes.ts)
// and the dashboard (dashboard.ts). Names come checked by the caller: the document's rules for
// the operator API, the form's (normalized) for the dashboard.

export type OrganizationCreation = { ok: true; organization: Organization } | { ok: false; reason: 'exists' };

/** A new organization; `db` may be a transaction that goes on to make its first owner. */
export async function createOrganization(
  db: Db,
  organization: { slug: string; name: string },
): Promise<OrganizationCreation> {
  const created = await new OrganizationRepository(db).create(organization.slug, organization.name);
  return created === undefined ? { ok: false, reason: 'exists' } : { ok: true, organization: created };
}

/** Every organization, by slug. */
export const listOrganizations = (sql: Sql): Promise<Organization[]> => new OrganizationRepository(sql).list();

export const organizationBySlug = (sql: Sql, slug: string): Promise<Organization | undefined> =>
  new OrganizationRepository(sql).bySlug(slug);

/** The organization's projects, active or not, by slug. */
export const listProjects = (sql: Sql, organizationId: string): Promise<Project[]> =>
  new OrganizationRepository(sql).projects(organizationId);

/** The project installs and dispatches address: active, by slug. */
export const activeProject = (db: Db, organizationId: string, slug: string) =>
  new OrganizationRepository(db).activeProject(organizationId, slug);

export type ProjectCreation = { ok: true; project: Project } | { ok: false; reason: 'exists' } | Forbidden;

export async function createProject(
  sql: Sql,
  by: Changer,
  organizationId: string,
  project: { slug: string; name: string },
): Promise<ProjectCreation> {
  return asOwner(sql, by, organizationId, (db) =>
    atomically(db, async (tx): Promise<ProjectCreation> => {
      const created = await new OrganizationRepository(tx).createProject(organizationId, project.slug, project.name);
      if (created === undefined) return { ok: false, reason: 'exists' };
      await new AuditRepository(tx).record(organizationId, 'project.created', by, {
        projectSlug: created.slug,
        name: created.name,
      });
      return { ok: true, project: created };
    }),
  );
}

export type ProjectActivation = { ok: true; project: Project } | { ok: false; reason: 'not_found' } | Forbidden;

/** Deactivation hides the project from keys (the API's listings, installs, dispatches); reactivation undoes it. */
export async function setProjectActive(
  sql: Sql,
  by: Changer,
  organizationId: string,
  slug: string,
  active: boolean,
): Promise<ProjectActivation> {
  return asOwner(sql, by, organizationId, (db) =>
    atomically(db, async (tx): Promise<ProjectActivation> => {
      if (!SLUG.test(slug)) return { ok: false, reason: 'not_found' };
      const organizations = new OrganizationRepository(tx);
      const changed = active
        ? await organizations.reactivateProject(organizationId, slug)
        : await organizations.deactivateProject(organizationId, slug);
      if (changed === undefined) return { ok: false, reason: 'not_found' };
      await new AuditRepository(tx).record(organizationId, active ? 'project.reactivated' : 'project.deactivated', by, {
        projectSlug: changed.slug,
        name: changed.name,
      });
      return { ok: true, project: changed };
    }),
  );
}
