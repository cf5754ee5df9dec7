import type { Sql } from 'postgres';
import type {
  GitHubLinking,
  GitHubPort,
  GitHubProof,
  GitHubReport,
  LinkedInstallation,
  RepositorySetting,
} from '@hub/dashboard';
import { isUuid } from '@hub/schemas';
import type { Logger } from '../../http/logger.js';
import type { GitHubConfig } from '../config.js';
import { userInstallations } from './github-api.js';
import { isInstallationId, linkInstallation, setProjectRepository, unlinkInstallation } from './service.js';
import { LinkRepository } from './sql.js';
import { reportOf } from './report.js';

const accountOf = (login: string | null, type: string | null) =>
  login === null || type === null ? undefined : { login, type };

/** The GitHub part of the dashboard's store: the settings page, an owner's proof, a project's repository, a run's report. */
export function githubStore(sql: Sql, github: GitHubConfig | undefined, log?: Logger): GitHubPort {
  return {
    githubSettings: () =>
      github === undefined
        ? undefined
        : {
            slug: github.slug,
            webUrl: github.webUrl,
            // GitHub Enterprise Server (its API under /api/v3) has the page under /github-apps/.
            installUrl: `${github.webUrl}/${/\/api\/v3$/.test(github.apiUrl) ? 'github-apps' : 'apps'}/${encodeURIComponent(github.slug)}/installations/new`,
            clientId: github.clientId,
          },
    async githubInstallations(organizationId): Promise<LinkedInstallation[]> {
      if (!isUuid(organizationId)) return [];
      const rows = await sql<
        {
          installationId: number;
          accountLogin: string | null;
          accountType: string | null;
          linkedAt: Date;
          linkedBy: string | null;
        }[]
      >`
        select i.installation_id::float8 as "installationId", i.account_login as "accountLogin",
               i.account_type as "accountType", i.linked_at as "linkedAt", a.name as "linkedBy"
        from github_installations i left join accounts a on a.id = i.linked_by_account
        where i.organization_id = ${organizationId} order by i.linked_at, i.installation_id`;
      return rows.map((row) => ({
        installationId: row.installationId,
        account: accountOf(row.accountLogin, row.accountType),
        linkedAt: row.linkedAt,
        linkedBy: row.linkedBy,
      }));
    },
    githubRepositories: async (organizationId) =>
      isUuid(organizationId) ? new LinkRepository(sql).repositories(organizationId) : [],
    async githubProof(organizationId, code, redirectUri): Promise<GitHubProof> {
      if (github === undefined) return { ok: false, reason: 'code_refused', message: 'GitHub is off on this hub.' };
      const proof = await userInstallations(github, code, redirectUri);
      if (!proof.ok) {
        log?.warn('github: an owner’s proof failed', { reason: proof.reason, error: proof.message });
        return proof;
      }
      const ids = proof.installations.map((installation) => installation.installationId);
      const linked = await sql<{ id: number; organizationId: string }[]>`
        select installation_id::float8 as id, organization_id as "organizationId" from github_installations
        where installation_id = any(${ids}::bigint[])`;
      const where = new Map(linked.map((row) => [row.id, row.organizationId]));
      return {
        ok: true,
        installations: proof.installations.map((installation) => {
          const holder = where.get(installation.installationId);
          return {
            ...installation,
            linked: holder === undefined ? null : holder === organizationId ? 'here' : 'elsewhere',
          };
        }),
      };
    },
    async linkGitHubInstallation(accountId, organizationId, installationId, account): Promise<GitHubLinking> {
      if (!isUuid(organizationId) || !isInstallationId(installationId)) return 'forbidden';
      const linked = await linkInstallation(sql, { kind: 'account', id: accountId }, organizationId, installationId, {
        github,
        account,
        log,
      });
      return linked.ok ? (linked.created ? 'linked' : 'already') : linked.reason;
    },
    async unlinkGitHubInstallation(accountId, organizationId, installationId) {
      if (!isUuid(organizationId)) return 'forbidden';
      const unlinked = await unlinkInstallation(
        sql,
        { kind: 'account', id: accountId },
        organizationId,
        installationId,
      );
      return unlinked.ok ? 'unlinked' : unlinked.reason;
    },
    async setProjectRepository(accountId, organizationId, slug, repository): Promise<RepositorySetting> {
      if (!isUuid(organizationId)) return 'forbidden';
      const by = { kind: 'account', id: accountId } as const;
      const changed = await setProjectRepository(sql, by, organizationId, slug, repository);
      if (changed.ok) return 'done';
      if (changed.reason === 'taken')
        return {
          taken: changed.holder.organizationId === organizationId ? changed.holder.projectSlug : undefined,
        };
      return changed.reason;
    },
    async githubReport(organizationId, runId): Promise<GitHubReport | undefined> {
      if (!isUuid(organizationId) || !isUuid(runId)) return undefined;
      return reportOf(sql, organizationId, runId);
    },
  };
}
