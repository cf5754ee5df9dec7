import type { Request } from 'express';
import { unauthorized } from '../auth/api-key.js';
import type { CompileTask } from '../compile/tasks.js';
import type { AuthoredConfiguration } from './sql.js';
import type { Hub } from '../hub.js';
import { authOf } from '../http/context.js';
import { handle, type BodyOf, type Handlers } from '../http/operation.js';
import { HttpProblem } from '../problems/problem.js';

type ConfigurationBody = BodyOf<'installConfiguration'>;

/** Configurations of projects, in shape A (`yaml`, `partials`) or B legacy (`files`): sections 4.2 to 4.5. */
export function configurationHandlers(hub: Hub): Handlers {
  /** Finds the project of, compiles and resolves a configuration: validate's work, and install's first half. */
  const compile = async (req: Request, body: ConfigurationBody) => {
    const { organizationId } = authOf(req);
    const { projectSlug } = body;
    const authored: AuthoredConfiguration =
      'yaml' in body
        ? { shape: 'configuration', yaml: body.yaml, partials: body.partials ?? [] }
        : { shape: 'bundle', files: body.files };
    const project = await hub.organizations.activeProject(organizationId, projectSlug);
    if (project === undefined)
      throw new HttpProblem('project_not_found', `The organization has no active project "${projectSlug}".`);
    const catalog = await hub.daemons.catalog(organizationId);
    const task: CompileTask =
      authored.shape === 'configuration'
        ? { kind: 'configuration', input: { yaml: authored.yaml, partials: authored.partials }, catalog }
        : { kind: 'bundle', input: { files: authored.files }, catalog };
    const { model, triggerNames } = await compileChecked(hub, task, 'invalid_configuration');
    return { projectSlug, authored, model, triggerNames };
  };
  return {
    validateConfiguration: handle(async ({ req, res, body }) => {
      const { projectSlug } = await compile(req, body);
      res.json({ projectSlug, valid: true });
    }),
    installConfiguration: handle(async ({ req, res, body }) => {
      const { projectSlug, authored, model, triggerNames } = await compile(req, body);
      const { organizationId, keyId } = authOf(req);
      const revision = await hub.revisions.install(
        organizationId,
        projectSlug,
        authored,
        { model, triggerNames },
        keyId,
      );
      if (revision === 'key_revoked') throw unauthorized();
      if (revision === undefined)
        throw new HttpProblem('project_not_found', `The organization has no active project "${projectSlug}".`);
      res.status(201).json({ projectSlug, versionId: revision.versionId, version: revision.version, active: true });
    }),
  };
}

/** Compiles, then resolves resources against the task's catalog; either failing is a 422. */
export async function compileChecked(
  hub: Hub,
  task: CompileTask,
  problem: 'invalid_configuration' | 'invalid_trigger',
) {
  const what = problem === 'invalid_trigger' ? 'trigger' : 'configuration';
  const result = await hub.compile(task);
  if (result.ok) return result;
  const { issues } = result;
  const count = `${issues.length} issue${issues.length === 1 ? '' : 's'}`;
  throw new HttpProblem(
    problem,
    result.stage === 'compile'
      ? `The ${what} has ${count}; see issues.`
      : `The ${what} names resources the organization does not have: ${count}; see issues.`,
    { issues },
  );
}
