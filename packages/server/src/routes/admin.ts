import type { Request } from 'express';
import { requireAdmin } from '../auth/admin.js';
import { SCOPES } from '../auth/api-key.js';
import { digest, displayPrefix, generateToken } from '../auth/secrets.js';
import type { Organization } from '../db/organizations.js';
import type { Hub } from '../hub.js';
import { BodyCheck } from '../http/body.js';
import { jsonBody } from '../http/middleware.js';
import { HttpProblem } from '../problems/problem.js';
import type { Route } from './registry.js';

const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;
const SLUG_HINT = 'must be 1 to 63 lowercase letters, digits and hyphens, starting with a letter or digit';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const BASE = '/api/admin/v1/organizations';

/** The operator API (DECISIONS.md, Operating the hub), behind HUB_ADMIN_TOKEN. */
export function adminRoutes(hub: Hub): Route[] {
  const admin = requireAdmin(hub.options.adminToken);
  const json = jsonBody(hub.options.maxBodyBytes);
  const organization = async (req: Request): Promise<Organization> => {
    const found = await hub.organizations.bySlug(String(req.params.org));
    if (found === undefined) throw new HttpProblem('organization_not_found', `No organization has the slug "${String(req.params.org)}".`);
    return found;
  };
  const slugAndName = (body: unknown) => {
    const check = new BodyCheck(body);
    const fields = check.object(['slug', 'name']);
    const slug = fields && check.string(fields, 'slug', { pattern: SLUG, patternHint: SLUG_HINT });
    const name = fields && check.string(fields, 'name', { maxLength: 200, pattern: /\S/, patternHint: 'must not be blank' });
    check.done();
    return { slug: slug as string, name: name as string };
  };

  return [
    {
      method: 'POST',
      path: BASE,
      handlers: [
        admin,
        json,
        async (req, res) => {
          const { slug, name } = slugAndName(req.body);
          const created = await hub.organizations.create(slug, name);
          if (created === undefined) throw new HttpProblem('organization_exists', `An organization already has the slug "${slug}".`);
          res.status(201).json(created);
        },
      ],
    },
    {
      method: 'POST',
      path: `${BASE}/:org/projects`,
      handlers: [
        admin,
        json,
        async (req, res) => {
          const org = await organization(req);
          const { slug, name } = slugAndName(req.body);
          const created = await hub.organizations.createProject(org.id, slug, name);
          if (created === undefined) throw new HttpProblem('project_exists', `The organization already has a project "${slug}".`);
          res.status(201).json({ id: created.id, slug: created.slug, name: created.name });
        },
      ],
    },
    {
      method: 'POST',
      path: `${BASE}/:org/projects/:slug/deactivate`,
      handlers: [
        admin,
        async (req, res) => {
          const org = await organization(req);
          const project = await hub.organizations.deactivateProject(org.id, String(req.params.slug));
          if (project === undefined) throw new HttpProblem('project_not_found', `The organization has no project "${String(req.params.slug)}".`);
          res.json(project);
        },
      ],
    },
    {
      method: 'POST',
      path: `${BASE}/:org/api-keys`,
      handlers: [
        admin,
        json,
        async (req, res) => {
          const org = await organization(req);
          const check = new BodyCheck(req.body);
          const fields = check.object(['name', 'scopes']);
          const name = fields && check.string(fields, 'name', { maxLength: 200, pattern: /\S/, patternHint: 'must not be blank' });
          const scopes = fields?.scopes;
          if (fields !== undefined) {
            if (!Array.isArray(scopes) || scopes.length === 0) check.add('/scopes', scopes === undefined ? 'request.required' : 'request.type', `"scopes" must be a non-empty list of: ${SCOPES.join(', ')}.`);
            else scopes.forEach((scope: unknown, index) => {
              if (!SCOPES.includes(scope as never)) check.add(`/scopes/${index}`, 'request.enum', `Unknown scope ${JSON.stringify(scope)}; scopes are ${SCOPES.join(', ')}.`);
            });
          }
          check.done();
          const secret = generateToken('pk');
          const unique = [...new Set(scopes as string[])];
          const key = await hub.apiKeys.create(org.id, { name: name as string, prefix: displayPrefix(secret, 'pk'), digest: digest(secret), scopes: unique });
          res.status(201).json({ id: key.id, name, prefix: displayPrefix(secret, 'pk'), scopes: unique, secret, createdAt: key.createdAt.toISOString() });
        },
      ],
    },
    {
      method: 'GET',
      path: `${BASE}/:org/api-keys`,
      handlers: [
        admin,
        async (req, res) => {
          const org = await organization(req);
          const keys = await hub.apiKeys.list(org.id);
          res.json({
            apiKeys: keys.map((key) => ({ ...key, createdAt: key.createdAt.toISOString(), lastUsedAt: key.lastUsedAt?.toISOString() ?? null })),
          });
        },
      ],
    },
    {
      method: 'POST',
      path: `${BASE}/:org/api-keys/:id/revoke`,
      handlers: [
        admin,
        async (req, res) => {
          const org = await organization(req);
          const id = String(req.params.id);
          if (!UUID.test(id) || !(await hub.apiKeys.revoke(org.id, id))) {
            throw new HttpProblem('api_key_not_found', `The organization has no API key ${id}.`);
          }
          res.json({ id, status: 'revoked' });
        },
      ],
    },
  ];
}
