import type { Db } from '../../db/connect.js';

/** An installation of the hub's GitHub App as linked to an organization (migrations/014_github.sql). */
export interface InstallationRow {
  installationId: number;
  organizationId: string;
  /** The organization's slug. */
  organization: string;
  accountLogin: string | null;
  accountType: string | null;
  linkedAt: Date;
}

/** The account GitHub names an installation's: a user, an organization or an enterprise. */
export interface InstallationAccount {
  login: string;
  type: string;
}

/** A project that names a repository, and its organization. */
export interface RepositoryHolder {
  projectId: string;
  projectSlug: string;
  organization: string;
  organizationId: string;
  repository: string;
}

const COLUMNS = (sql: Db) => sql`
  i.installation_id::float8 as "installationId", i.organization_id as "organizationId", o.slug as organization,
  i.account_login as "accountLogin", i.account_type as "accountType", i.linked_at as "linkedAt"`;

/** github_installations, and the repositories projects name. */
export class LinkRepository {
  constructor(private readonly sql: Db) {}

  async installations(organizationId: string): Promise<InstallationRow[]> {
    return this.sql<InstallationRow[]>`
      select ${COLUMNS(this.sql)} from github_installations i join organizations o on o.id = i.organization_id
      where i.organization_id = ${organizationId} order by i.linked_at, i.installation_id`;
  }

  async installation(installationId: number): Promise<InstallationRow | undefined> {
    const [row] = await this.sql<InstallationRow[]>`
      select ${COLUMNS(this.sql)} from github_installations i join organizations o on o.id = i.organization_id
      where i.installation_id = ${installationId}`;
    return row;
  }

  /** Links the installation unless it is linked already (to this organization or another): true when this call linked it. */
  async link(
    installationId: number,
    organizationId: string,
    account: InstallationAccount | undefined,
    accountId: string | null,
  ): Promise<boolean> {
    const rows = await this.sql`
      insert into github_installations (installation_id, organization_id, account_login, account_type, linked_by_account)
      values (${installationId}, ${organizationId}, ${account?.login ?? null}, ${account?.type ?? null}, ${accountId})
      on conflict (installation_id) do nothing returning installation_id`;
    return rows.length === 1;
  }

  /** What GitHub now calls the installation's account. */
  async setAccount(installationId: number, account: InstallationAccount): Promise<void> {
    await this.sql`
      update github_installations set account_login = ${account.login}, account_type = ${account.type}
      where installation_id = ${installationId}`;
  }

  async unlink(installationId: number, organizationId: string): Promise<InstallationRow | undefined> {
    const [row] = await this.sql<InstallationRow[]>`
      delete from github_installations i using organizations o
      where i.installation_id = ${installationId} and i.organization_id = ${organizationId} and o.id = i.organization_id
      returning ${COLUMNS(this.sql)}`;
    return row;
  }

  /** The project that names `repository` (without regard to case), if any. */
  async holder(repository: string): Promise<RepositoryHolder | undefined> {
    const [row] = await this.sql<RepositoryHolder[]>`
      select p.id as "projectId", p.slug as "projectSlug", o.slug as organization, o.id as "organizationId", p.repository
      from projects p join organizations o on o.id = p.organization_id
      where lower(p.repository) = lower(${repository})`;
    return row;
  }

  /** The organization's projects that name a repository, by slug. */
  async repositories(organizationId: string): Promise<{ slug: string; name: string; repository: string }[]> {
    return this.sql<{ slug: string; name: string; repository: string }[]>`
      select slug, name, repository from projects
      where organization_id = ${organizationId} and repository is not null order by slug`;
  }

  /** The project's repository, locked until the transaction ends; undefined when there is no such project. */
  async lockProject(
    organizationId: string,
    slug: string,
  ): Promise<{ id: string; repository: string | null } | undefined> {
    const [row] = await this.sql<{ id: string; repository: string | null }[]>`
      select id, repository from projects where organization_id = ${organizationId} and slug = ${slug} for update`;
    return row;
  }

  async setRepository(projectId: string, repository: string | null) {
    const [row] = await this.sql<
      { id: string; slug: string; name: string; active: boolean; repository: string | null }[]
    >`
      update projects set repository = ${repository} where id = ${projectId}
      returning id, slug, name, active, repository`;
    return row;
  }
}
