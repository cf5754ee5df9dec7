import type { Request } from 'express';
import { digest, displayPrefix, generateToken } from '../auth/secrets.js';
import type { Organization } from './sql.js';
import type { Hub } from '../hub.js';
import { handle, type Handlers } from '../http/operation.js';
import { HttpProblem } from '../problems/problem.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The operator API (DECISIONS.md, Operating the hub), behind HUB_ADMIN_TOKEN. */
export function operatorHandlers(hub: Hub): Handlers {
  const organization = async (req: Request): Promise<Organization> => {
    const slug = String(req.params.org);
    const found = await hub.organizations.bySlug(slug);
    if (found === undefined) throw new HttpProblem('organization_not_found', `No organization has the slug "${slug}".`);
    return found;
  };
  return {
    listOrganizations: handle(async ({ res }) => void res.json({ organizations: await hub.organizations.list() })),
    createOrganization: handle(async ({ res, body }) => {
      const created = await hub.organizations.create(body.slug, body.name);
      if (created === undefined)
        throw new HttpProblem('organization_exists', `An organization already has the slug "${body.slug}".`);
      res.status(201).json(created);
    }),
    listOrganizationProjects: handle(async ({ req, res }) => {
      const org = await organization(req);
      res.json({ projects: await hub.organizations.projects(org.id) });
    }),
    createProject: handle(async ({ req, res, body }) => {
      const org = await organization(req);
      const created = await hub.organizations.createProject(org.id, body.slug, body.name);
      if (created === undefined)
        throw new HttpProblem('project_exists', `The organization already has a project "${body.slug}".`);
      res.status(201).json({ id: created.id, slug: created.slug, name: created.name });
    }),
    deactivateProject: handle(async ({ req, res, params }) => {
      const org = await organization(req);
      const project = await hub.organizations.deactivateProject(org.id, params.slug);
      if (project === undefined)
        throw new HttpProblem('project_not_found', `The organization has no project "${params.slug}".`);
      res.json(project);
    }),
    createApiKey: handle(async ({ req, res, body }) => {
      const org = await organization(req);
      const secret = generateToken('pk');
      const scopes = [...new Set(body.scopes)];
      const prefix = displayPrefix(secret, 'pk');
      const key = await hub.apiKeys.create(
        org.id,
        { name: body.name, prefix, digest: digest(secret), scopes },
        { kind: 'operator' },
      );
      res
        .status(201)
        .json({ id: key.id, name: body.name, prefix, scopes, secret, createdAt: key.createdAt.toISOString() });
    }),
    listApiKeys: handle(async ({ req, res }) => {
      const org = await organization(req);
      const keys = await hub.apiKeys.list(org.id);
      res.json({
        apiKeys: keys.map((key) => ({
          ...key,
          createdAt: key.createdAt.toISOString(),
          lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
        })),
      });
    }),
    revokeApiKey: handle(async ({ req, res, params }) => {
      const org = await organization(req);
      const { id } = params;
      if (!UUID.test(id) || !(await hub.apiKeys.revoke(org.id, id, { kind: 'operator' })))
        throw new HttpProblem('api_key_not_found', `The organization has no API key ${id}.`);
      res.json({ id, status: 'revoked' });
    }),
  };
}
