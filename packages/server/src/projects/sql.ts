import type { Db } from '../db/connect.js';

export interface Organization {
  id: string;
  slug: string;
  name: string;
}

export interface Project {
  id: string;
  slug: string;
  name: string;
  active: boolean;
  /** The GitHub repository it names (`owner/name`), or null. */
  repository: string | null;
}

/** Organizations, their projects, and who may change them. */
export class OrganizationRepository {
  constructor(private readonly sql: Db) {}

  /**
   * The account's role in the organization, or undefined. FOR SHARE: inside a transaction, the
   * membership cannot change or go until it ends.
   */
  async role(organizationId: string, accountId: string): Promise<'owner' | 'member' | undefined> {
    const [row] = await this.sql<{ role: 'owner' | 'member' }[]>`
      select role from organization_members
      where organization_id = ${organizationId} and account_id = ${accountId}
      for share`;
    return row?.role;
  }

  /** The new organization, or undefined when the slug is taken. */
  async create(slug: string, name: string): Promise<Organization | undefined> {
    const [row] = await this.sql<Organization[]>`
      insert into organizations (slug, name) values (${slug}, ${name})
      on conflict (slug) do nothing
      returning id, slug, name`;
    return row;
  }

  /** Every organization, ordered by slug. */
  async list(): Promise<Organization[]> {
    return this.sql<Organization[]>`select id, slug, name from organizations order by slug`;
  }

  /** The organization's projects, active or not, ordered by slug. */
  async projects(organizationId: string): Promise<Project[]> {
    return this.sql<
      Project[]
    >`select id, slug, name, active, repository from projects where organization_id = ${organizationId} order by slug`;
  }

  async bySlug(slug: string): Promise<Organization | undefined> {
    const [row] = await this.sql<Organization[]>`select id, slug, name from organizations where slug = ${slug}`;
    return row;
  }

  async createProject(organizationId: string, slug: string, name: string): Promise<Project | undefined> {
    const [row] = await this.sql<Project[]>`
      insert into projects (organization_id, slug, name) values (${organizationId}, ${slug}, ${name})
      on conflict (organization_id, slug) do nothing
      returning id, slug, name, active, repository`;
    return row;
  }

  async deactivateProject(organizationId: string, slug: string): Promise<Project | undefined> {
    const [row] = await this.sql<Project[]>`
      update projects set active = false where organization_id = ${organizationId} and slug = ${slug}
      returning id, slug, name, active, repository`;
    return row;
  }

  async reactivateProject(organizationId: string, slug: string): Promise<Project | undefined> {
    const [row] = await this.sql<Project[]>`
      update projects set active = true where organization_id = ${organizationId} and slug = ${slug}
      returning id, slug, name, active, repository`;
    return row;
  }

  async activeProject(
    organizationId: string,
    slug: string,
  ): Promise<Omit<Project, 'active' | 'repository'> | undefined> {
    const [row] = await this.sql<Omit<Project, 'active' | 'repository'>[]>`
      select id, slug, name from projects where organization_id = ${organizationId} and slug = ${slug} and active`;
    return row;
  }
}
