import type { Db } from '../db/connect.js';

export interface ProjectListing {
  slug: string;
  name: string;
  active: boolean;
  createdAt: Date;
  activeVersion: number | null;
  installedAt: Date | null;
  repository: string | null;
}

export interface RevisionListing {
  version: number;
  installedAt: Date;
  active: boolean;
  keyName: string;
  keyPrefix: string;
  keyKind: 'api_key' | 'cli';
  accountName: string | null;
}

export interface RevisionContentRow extends RevisionListing {
  shape: 'configuration' | 'bundle';
  yaml: string | null;
  partials: { path: string; content: string }[] | null;
  files: { path: string; content: string }[] | null;
}

/** What the dashboard reads of projects and their configuration revisions (the API's reads live elsewhere). */
export class ProjectViewRepository {
  constructor(private readonly sql: Db) {}

  /** The organization's projects, active or not, by slug, each with its active revision. */
  async projects(organizationId: string, limit: number, offset: number): Promise<ProjectListing[]> {
    return this.sql<ProjectListing[]>`
      select p.slug, p.name, p.active, p.created_at as "createdAt", p.repository,
             r.version as "activeVersion", r.created_at as "installedAt"
      from projects p
      left join configuration_revisions r on r.project_id = p.id and r.active
      where p.organization_id = ${organizationId}
      order by p.slug limit ${limit} offset ${offset}`;
  }

  async project(organizationId: string, slug: string): Promise<ProjectListing | undefined> {
    const [row] = await this.sql<ProjectListing[]>`
      select p.slug, p.name, p.active, p.created_at as "createdAt", p.repository,
             r.version as "activeVersion", r.created_at as "installedAt"
      from projects p
      left join configuration_revisions r on r.project_id = p.id and r.active
      where p.organization_id = ${organizationId} and p.slug = ${slug}`;
    return row;
  }

  /** The project's revisions, newest first, each with the key that installed it and the key's maker. */
  async revisions(organizationId: string, slug: string, limit: number, offset: number): Promise<RevisionListing[]> {
    return this.sql<RevisionListing[]>`
      select r.version, r.created_at as "installedAt", r.active,
             k.name as "keyName", k.prefix as "keyPrefix", k.kind as "keyKind", a.name as "accountName"
      from configuration_revisions r
      join projects p on p.id = r.project_id
      join api_keys k on k.id = r.api_key_id
      left join accounts a on a.id = k.created_by_account_id
      where p.organization_id = ${organizationId} and p.slug = ${slug}
      order by r.version desc limit ${limit} offset ${offset}`;
  }

  async revision(organizationId: string, slug: string, version: number): Promise<RevisionContentRow | undefined> {
    const [row] = await this.sql<RevisionContentRow[]>`
      select r.version, r.created_at as "installedAt", r.active,
             k.name as "keyName", k.prefix as "keyPrefix", k.kind as "keyKind", a.name as "accountName",
             r.shape, r.yaml, r.partials, r.files
      from configuration_revisions r
      join projects p on p.id = r.project_id
      join api_keys k on k.id = r.api_key_id
      left join accounts a on a.id = k.created_by_account_id
      where p.organization_id = ${organizationId} and p.slug = ${slug} and r.version = ${version}`;
    return row;
  }
}
