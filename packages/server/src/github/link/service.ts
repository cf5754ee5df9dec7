import type { Sql } from 'postgres';
import { isRepository } from '@hub/schemas';
import { AuditRepository } from '../../audit/index.js';
import { atomically } from '../../db/transaction.js';
import type { Logger } from '../../http/logger.js';
import { asOwner, type Changer, type Forbidden, type Project } from '../../projects/index.js';
import type { GitHubConfig } from '../config.js';
import { installationAccount } from './github-api.js';
import { LinkRepository, type InstallationAccount, type InstallationRow, type RepositoryHolder } from './sql.js';

// The use cases of linking GitHub to the hub (DECISIONS.md, GitHub): an installation of the app
// belongs to one organization, a repository to one project. Shared by the operator API
// (operator-routes.ts) and the dashboard (dashboard.ts); each change is audited in its transaction.

/** The largest id an installation can have here: JSON numbers stay exact up to 2^53 - 1. */
export const INSTALLATION_ID_MAX = Number.MAX_SAFE_INTEGER;

export const isInstallationId = (id: number) => Number.isSafeInteger(id) && id > 0;

export type Linking =
  | { ok: true; created: boolean; installation: InstallationRow }
  | { ok: false; reason: 'taken'; organization: string }
  | Forbidden;

/**
 * Links an installation to an organization; linking it again to the same one changes nothing but
 * the account's name. With GitHub configured and no account given, the hub asks GitHub for it,
 * best effort (GitHub down or the app's key refused: linked all the same, without it).
 */
export async function linkInstallation(
  sql: Sql,
  by: Changer,
  organizationId: string,
  installationId: number,
  options: { github?: GitHubConfig | undefined; account?: InstallationAccount | undefined; log?: Logger },
): Promise<Linking> {
  let account = options.account;
  if (account === undefined && options.github !== undefined) {
    account = await installationAccount(options.github, installationId).catch((error: unknown) => {
      options.log?.warn('github: the installation’s account could not be read; linked without it', {
        installationId,
        error: (error as Error).message,
      });
      return undefined;
    });
  }
  return asOwner(sql, by, organizationId, (db) =>
    atomically(db, async (tx): Promise<Linking> => {
      const links = new LinkRepository(tx);
      const created = await links.link(installationId, organizationId, account, by.kind === 'account' ? by.id : null);
      const installation = (await links.installation(installationId)) as InstallationRow;
      if (installation.organizationId !== organizationId)
        return { ok: false, reason: 'taken', organization: installation.organization };
      if (created) {
        await new AuditRepository(tx).record(organizationId, 'github_installation.linked', by, {
          installationId,
          ...(account === undefined ? {} : { account: account.login }),
        });
      } else if (account !== undefined && account.login !== installation.accountLogin) {
        await links.setAccount(installationId, account);
        return {
          ok: true,
          created,
          installation: { ...installation, accountLogin: account.login, accountType: account.type },
        };
      }
      return { ok: true, created, installation };
    }),
  );
}

export type Unlinking = { ok: true; installation: InstallationRow } | { ok: false; reason: 'not_found' } | Forbidden;

export async function unlinkInstallation(
  sql: Sql,
  by: Changer,
  organizationId: string,
  installationId: number,
): Promise<Unlinking> {
  if (!isInstallationId(installationId)) return { ok: false, reason: 'not_found' };
  return asOwner(sql, by, organizationId, (db) =>
    atomically(db, async (tx): Promise<Unlinking> => {
      const removed = await new LinkRepository(tx).unlink(installationId, organizationId);
      if (removed === undefined) return { ok: false, reason: 'not_found' };
      await new AuditRepository(tx).record(organizationId, 'github_installation.unlinked', by, {
        installationId,
        ...(removed.accountLogin === null ? {} : { account: removed.accountLogin }),
      });
      return { ok: true, installation: removed };
    }),
  );
}

export type RepositoryChange =
  | { ok: true; project: Project }
  | { ok: false; reason: 'not_found' | 'invalid' }
  | { ok: false; reason: 'taken'; holder: RepositoryHolder }
  | Forbidden;

/** Names the project's repository (`owner/name`, unique in the hub without regard to case), or none with null. */
export async function setProjectRepository(
  sql: Sql,
  by: Changer,
  organizationId: string,
  slug: string,
  repository: string | null,
): Promise<RepositoryChange> {
  const change = () =>
    asOwner(sql, by, organizationId, (db) =>
      atomically(db, async (tx): Promise<RepositoryChange> => {
        const links = new LinkRepository(tx);
        const project = await links.lockProject(organizationId, slug);
        if (project === undefined) return { ok: false, reason: 'not_found' };
        // After the project's 404, as DECISIONS.md orders checks: 400, 404, then 422.
        if (repository !== null && !isRepository(repository)) return { ok: false, reason: 'invalid' };
        const holder = repository === null ? undefined : await links.holder(repository);
        if (holder !== undefined && holder.projectId !== project.id) return { ok: false, reason: 'taken', holder };
        const changed = (await links.setRepository(project.id, repository)) as Project;
        if (project.repository !== repository)
          await new AuditRepository(tx).record(organizationId, 'project.repository_changed', by, {
            projectSlug: changed.slug,
            name: changed.name,
            repository,
            previousRepository: project.repository,
          });
        return { ok: true, project: changed };
      }),
    );
  try {
    return await change();
  } catch (error) {
    // Two projects naming the same repository at once: the unique index let one commit.
    if ((error as { constraint_name?: string }).constraint_name !== 'projects_repository') throw error;
    const holder = await new LinkRepository(sql).holder(repository as string);
    if (holder === undefined) throw error;
    return { ok: false, reason: 'taken', holder };
  }
}
