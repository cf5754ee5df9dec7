import type { Request } from 'express';
import type { Hub } from '../hub.js';
import { handle, type Handlers } from '../http/operation.js';
import { HttpProblem } from '../problems/problem.js';
import * as projects from './service.js';
import type { Organization, Project } from './sql.js';

const OPERATOR = { kind: 'operator' } as const;

/** A project as the operator API shows it: `repository` only when it names one. */
export function operatorProjectView(project: Project) {
  const { id, slug, name, active, repository } = project;
  return { id, slug, name, active, ...(repository === null ? {} : { repository }) };
}

/** The organization an operator route names by its `org` slug; 404 organization_not_found when there is none. */
export async function operatorOrganization(hub: Hub, req: Request): Promise<Organization> {
  const slug = String(req.params.org);
  const found = await projects.organizationBySlug(hub.sql, slug);
  if (found === undefined) throw new HttpProblem('organization_not_found', `No organization has the slug "${slug}".`);
  return found;
}

/** The operator API's organizations and projects (DECISIONS.md, Operating the hub), behind HUB_ADMIN_TOKEN; its keys are keys/'. */
export function operatorHandlers(hub: Hub): Handlers {
  return {
    listOrganizations: handle(
      async ({ res }) => void res.json({ organizations: await projects.listOrganizations(hub.sql) }),
    ),
    createOrganization: handle(async ({ res, body }) => {
      const created = await projects.createOrganization(hub.sql, body);
      if (!created.ok)
        throw new HttpProblem('organization_exists', `An organization already has the slug "${body.slug}".`);
      res.status(201).json(created.organization);
    }),
    listOrganizationProjects: handle(async ({ req, res }) => {
      const org = await operatorOrganization(hub, req);
      res.json({ projects: (await projects.listProjects(hub.sql, org.id)).map(operatorProjectView) });
    }),
    createProject: handle(async ({ req, res, body }) => {
      const org = await operatorOrganization(hub, req);
      const created = await projects.createProject(hub.sql, OPERATOR, org.id, body);
      if (!created.ok)
        throw new HttpProblem('project_exists', `The organization already has a project "${body.slug}".`);
      const { id, slug, name } = created.project;
      res.status(201).json({ id, slug, name });
    }),
    deactivateProject: handle(async ({ req, res, params }) => {
      const org = await operatorOrganization(hub, req);
      const changed = await projects.setProjectActive(hub.sql, OPERATOR, org.id, params.slug, false);
      if (!changed.ok) throw new HttpProblem('project_not_found', `The organization has no project "${params.slug}".`);
      res.json(operatorProjectView(changed.project));
    }),
  };
}
