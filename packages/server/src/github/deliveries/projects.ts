import type { CompiledConfiguration } from '@hub/compiler';
import type { Db } from '../../db/connect.js';

/** The project that names a repository, when the event's installation is linked to its organization. */
export interface LinkedProject {
  projectId: string;
  organizationId: string;
  slug: string;
  /** The active configuration revision, if the project has one. */
  revisionId: string | null;
}

/** A revision's compiled model (a revision never changes: callers may keep it). */
export async function revisionModel(sql: Db, revisionId: string): Promise<CompiledConfiguration> {
  const [row] = await sql<{ model: CompiledConfiguration }[]>`
    select model from configuration_revisions where id = ${revisionId}`;
  if (row === undefined) throw new Error(`configuration revision ${revisionId} is gone`);
  return row.model;
}

/**
 * DECISIONS.md, GitHub: events of repositories that no active project names, or whose installation
 * is not linked to that project's organization, are ignored (`why` says which, for the log).
 */
export async function linkedProject(
  sql: Db,
  repository: string,
  installationId: number,
): Promise<LinkedProject | { ignored: string }> {
  const [row] = await sql<(LinkedProject & { linked: boolean })[]>`
    select p.id as "projectId", p.organization_id as "organizationId", p.slug, r.id as "revisionId",
      exists (select 1 from github_installations i
              where i.installation_id = ${installationId} and i.organization_id = p.organization_id) as linked
    from projects p
    left join configuration_revisions r on r.project_id = p.id and r.active
    where lower(p.repository) = lower(${repository}) and p.active`;
  if (row === undefined) return { ignored: 'no project names the repository' };
  if (!row.linked) return { ignored: "the installation is not linked to the project's organization" };
  const { linked: _linked, ...project } = row;
  return project;
}
