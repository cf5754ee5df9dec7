import { unauthorized } from '../auth/api-key.js';
import type { Hub } from '../hub.js';
import { authOf } from '../http/context.js';
import { handle, type BodyOf, type Handlers } from '../http/operation.js';
import { HttpProblem } from '../problems/problem.js';
import { invalidProblem } from './problems.js';
import { checkConfiguration, installConfiguration } from './service.js';
import type { AuthoredConfiguration } from './sql.js';

type ConfigurationBody = BodyOf<'installConfiguration'>;

const authoredOf = (body: ConfigurationBody): AuthoredConfiguration =>
  'yaml' in body
    ? { shape: 'configuration', yaml: body.yaml, partials: body.partials ?? [] }
    : { shape: 'bundle', files: body.files };

const projectNotFound = (slug: string) =>
  new HttpProblem('project_not_found', `The organization has no active project "${slug}".`);

/** Configurations of projects, in shape A (`yaml`, `partials`) or B legacy (`files`): sections 4.2 to 4.5. */
export function configurationHandlers(hub: Hub): Handlers {
  return {
    validateConfiguration: handle(async ({ req, res, body }) => {
      const { projectSlug } = body;
      const checked = await checkConfiguration(
        hub.sql,
        hub.compile,
        authOf(req).organizationId,
        projectSlug,
        authoredOf(body),
      );
      if (!checked.ok)
        throw checked.reason === 'invalid'
          ? invalidProblem(checked, 'invalid_configuration')
          : projectNotFound(projectSlug);
      res.json({ projectSlug, valid: true });
    }),
    installConfiguration: handle(async ({ req, res, body }) => {
      const { projectSlug } = body;
      const installed = await installConfiguration(hub.sql, hub.compile, authOf(req), projectSlug, authoredOf(body));
      if (!installed.ok) {
        if (installed.reason === 'invalid') throw invalidProblem(installed, 'invalid_configuration');
        throw installed.reason === 'key_revoked' ? unauthorized() : projectNotFound(projectSlug);
      }
      const { versionId, version } = installed.revision;
      res.status(201).json({ projectSlug, versionId, version, active: true });
    }),
  };
}
