import type { Hub } from '../../hub.js';
import { handle, type Handlers } from '../../http/operation.js';
import { HttpProblem } from '../../problems/problem.js';
import { operatorOrganization, operatorProjectView } from '../../projects/index.js';
import { linkInstallation, setProjectRepository, unlinkInstallation } from './service.js';
import { LinkRepository, type InstallationRow } from './sql.js';

const OPERATOR = { kind: 'operator' } as const;

/** An installation as the operator API shows it: the account only once the hub knows it. */
export function installationView(row: InstallationRow) {
  return {
    installationId: row.installationId,
    organization: row.organization,
    ...(row.accountLogin === null ? {} : { accountLogin: row.accountLogin }),
    ...(row.accountType === null ? {} : { accountType: row.accountType }),
    linkedAt: row.linkedAt.toISOString(),
  };
}

/** The installation id of a path: a positive integer written plainly, or undefined (no such installation). */
const installationIdOf = (text: string) => (/^[1-9][0-9]{0,15}$/.test(text) ? Number(text) : undefined);

/** The operator API's GitHub links (DECISIONS.md, GitHub), behind HUB_ADMIN_TOKEN. */
export function operatorLinkHandlers(hub: Hub): Handlers {
  return {
    listGitHubInstallations: handle(async ({ req, res }) => {
      const org = await operatorOrganization(hub, req);
      const rows = await new LinkRepository(hub.sql).installations(org.id);
      res.json({ githubInstallations: rows.map(installationView) });
    }),
    linkGitHubInstallation: handle(async ({ req, res, body }) => {
      const org = await operatorOrganization(hub, req);
      const linked = await linkInstallation(hub.sql, OPERATOR, org.id, body.installationId, {
        github: hub.options.github,
        log: hub.log,
      });
      if (!linked.ok) {
        if (linked.reason === 'forbidden') throw new Error('the operator is never refused');
        throw new HttpProblem(
          'github_installation_taken',
          `The installation ${body.installationId} is linked to the organization "${linked.organization}".`,
          { extensions: { organization: linked.organization } },
        );
      }
      res.status(linked.created ? 201 : 200).json(installationView(linked.installation));
    }),
    unlinkGitHubInstallation: handle(async ({ req, res, params }) => {
      const org = await operatorOrganization(hub, req);
      const id = installationIdOf(params.installationId);
      const unlinked = id === undefined ? undefined : await unlinkInstallation(hub.sql, OPERATOR, org.id, id);
      if (unlinked?.ok !== true)
        throw new HttpProblem(
          'github_installation_not_found',
          `No installation ${params.installationId} is linked to the organization "${org.slug}".`,
        );
      res.status(204).end();
    }),
    updateProject: handle(async ({ req, res, params, body }) => {
      const org = await operatorOrganization(hub, req);
      const changed = await setProjectRepository(hub.sql, OPERATOR, org.id, params.slug, body.repository);
      if (changed.ok) {
        res.json(operatorProjectView(changed.project));
        return;
      }
      if (changed.reason === 'not_found')
        throw new HttpProblem('project_not_found', `The organization has no project "${params.slug}".`);
      if (changed.reason === 'invalid') {
        const message = `${JSON.stringify(body.repository)} is not a GitHub repository's owner/name, such as octo-org/hello-world.`;
        throw new HttpProblem('invalid_repository', message, {
          issues: [{ pointer: '/repository', code: 'repository.format', message }],
        });
      }
      if (changed.reason === 'taken') {
        const { holder } = changed;
        throw new HttpProblem(
          'repository_taken',
          `The project "${holder.projectSlug}" of the organization "${holder.organization}" already names ${holder.repository}.`,
          { extensions: { organization: holder.organization, projectSlug: holder.projectSlug } },
        );
      }
      throw new Error('the operator is never refused');
    }),
  };
}
