import type { Request } from 'express';
import type { CompileTask } from '../compile/tasks.js';
import type { AuthoredConfiguration } from '../db/revisions.js';
import type { Hub } from '../hub.js';
import { BodyCheck } from '../http/body.js';
import { OrganizationRepository } from '../db/organizations.js';
import { authOf, contextOf, inputOf } from '../http/context.js';
import { HttpProblem } from '../problems/problem.js';
import type { Route } from './registry.js';
import { scoped } from './scoped.js';

/** GET /api/v1/projects and the configuration and trigger endpoints of sections 4.1 to 4.7. */
export function publicRoutes(hub: Hub): Route[] {
  /** Reads, finds the project of, compiles and resolves a configuration request: validate's work, and install's first half. */
  const configuration = async (req: Request) => {
    const { organizationId } = authOf(req);
    const { projectSlug, authored } = inputOf<ConfigurationBody>(req);
    const project = await hub.organizations.activeProject(organizationId, projectSlug);
    if (project === undefined) throw new HttpProblem('project_not_found', `The organization has no active project "${projectSlug}".`);
    const catalog = await hub.daemons.catalog(organizationId);
    const task: CompileTask =
      authored.shape === 'configuration'
        ? { kind: 'configuration', input: { yaml: authored.yaml, partials: authored.partials }, catalog }
        : { kind: 'bundle', input: { files: authored.files }, catalog };
    const { model, triggerNames } = await compileChecked(hub, task, 'invalid_configuration');
    return { projectSlug, authored, model, triggerNames };
  };

  const trigger = async (req: Request) => {
    const yaml = inputOf<string>(req);
    const catalog = await hub.daemons.catalog(authOf(req).organizationId);
    const { model, triggerNames } = await compileChecked(hub, { kind: 'trigger', input: { yaml }, catalog }, 'invalid_trigger');
    return { yaml, model, name: triggerNames[0] as string };
  };

  return [
    scoped(
      hub,
      'GET',
      '/api/v1/projects',
      'projects:read',
      (req, res) => void res.json({ projects: contextOf(req).prefetched }),
      { prefetch: OrganizationRepository.activeProjectsOfKey },
    ),
    scoped(hub, 'POST', '/api/v1/configurations/validate', 'configuration:validate', async (req, res) => {
      const { projectSlug } = await configuration(req);
      res.json({ projectSlug, valid: true });
    }, { read: readConfigurationBody }),
    scoped(hub, 'POST', '/api/v1/configurations/install', 'configuration:install', async (req, res) => {
      const { projectSlug, authored, model, triggerNames } = await configuration(req);
      const { organizationId, keyId } = authOf(req);
      const revision = await hub.revisions.install(organizationId, projectSlug, authored, { model, triggerNames }, keyId);
      if (revision === undefined) throw new HttpProblem('project_not_found', `The organization has no active project "${projectSlug}".`);
      res.status(201).json({ projectSlug, versionId: revision.versionId, version: revision.version, active: true });
    }, { read: readConfigurationBody }),
    scoped(hub, 'POST', '/api/v1/triggers/validate', 'configuration:validate', async (req, res) => {
      const { name } = await trigger(req);
      res.json({ name, valid: true });
    }, { read: readTriggerBody }),
    scoped(hub, 'POST', '/api/v1/triggers/install', 'configuration:install', async (req, res) => {
      const { yaml, model, name } = await trigger(req);
      const { organizationId, keyId } = authOf(req);
      const installed = await hub.triggers.install(organizationId, name, yaml, model, keyId);
      res.status(201).json({ ...installed, active: true });
    }, { read: readTriggerBody }),
  ];
}

/** Compiles, then resolves resources against the task's catalog; either failing is a 422. */
async function compileChecked(hub: Hub, task: CompileTask, problem: 'invalid_configuration' | 'invalid_trigger') {
  const what = problem === 'invalid_trigger' ? 'trigger' : 'configuration';
  const result = await hub.compile(task);
  if (result.ok) return result;
  const { issues } = result;
  throw new HttpProblem(
    problem,
    result.stage === 'compile'
      ? `The ${what} has ${count(issues.length)}; see issues.`
      : `The ${what} names resources the organization does not have: ${count(issues.length)}; see issues.`,
    { issues },
  );
}

function count(n: number): string {
  return `${n} issue${n === 1 ? '' : 's'}`;
}

/** Shape A ({ projectSlug, yaml, partials? }) or B legacy ({ projectSlug, files }). */
interface ConfigurationBody {
  projectSlug: string;
  authored: AuthoredConfiguration;
}

function readConfigurationBody(body: unknown): ConfigurationBody {
  const check = new BodyCheck(body);
  const fields = check.object(['projectSlug', 'yaml', 'partials', 'files']);
  let authored: AuthoredConfiguration | undefined;
  let projectSlug: string | undefined;
  if (fields !== undefined) {
    projectSlug = check.string(fields, 'projectSlug');
    const hasYaml = fields.yaml !== undefined;
    if (hasYaml === (fields.files !== undefined)) {
      check.add('', 'request.shape', 'Send either yaml (with optional partials), or files (a legacy bundle); not both, not neither.');
    } else if (hasYaml) {
      if (fields.partials !== undefined && fields.files !== undefined) check.add('/files', 'request.unknown_field', 'files goes without yaml.');
      const yaml = check.string(fields, 'yaml');
      const partials = check.files(fields, 'partials', false);
      if (yaml !== undefined && partials !== undefined) authored = { shape: 'configuration', yaml, partials };
    } else {
      if (fields.partials !== undefined) check.add('/partials', 'request.unknown_field', 'A legacy bundle carries its partials among its files.');
      const files = check.files(fields, 'files', true);
      if (files !== undefined) authored = { shape: 'bundle', files };
    }
  }
  check.done();
  return { projectSlug: projectSlug as string, authored: authored as AuthoredConfiguration };
}

function readTriggerBody(body: unknown): string {
  const check = new BodyCheck(body);
  const fields = check.object(['yaml']);
  const yaml = fields && check.string(fields, 'yaml');
  check.done();
  return yaml as string;
}
