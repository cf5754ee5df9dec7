import type { Hub } from '../hub.js';
import { handle, type Handlers } from '../http/operation.js';
import { HttpProblem } from '../problems/problem.js';
import { operatorOrganization } from '../projects/index.js';
import { createKey, listKeys, revokeKey } from './service.js';

const OPERATOR = { kind: 'operator' } as const;

/** The operator API's keys of an organization (DECISIONS.md, Operating the hub), behind HUB_ADMIN_TOKEN. */
export function operatorKeyHandlers(hub: Hub): Handlers {
  return {
    createApiKey: handle(async ({ req, res, body }) => {
      const org = await operatorOrganization(hub, req);
      const created = await createKey(hub.sql, OPERATOR, org.id, body);
      // The operator is never refused: asOwner checks accounts only.
      if (!created.ok) throw new Error('the operator was refused a key');
      const { key } = created;
      res.status(201).json({ ...key, createdAt: key.createdAt.toISOString() });
    }),
    listApiKeys: handle(async ({ req, res }) => {
      const org = await operatorOrganization(hub, req);
      const keys = await listKeys(hub.sql, org.id);
      res.json({
        apiKeys: keys.map(({ createdBy: _, ...key }) => ({
          ...key,
          createdAt: key.createdAt.toISOString(),
          lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
        })),
      });
    }),
    revokeApiKey: handle(async ({ req, res, params }) => {
      const org = await operatorOrganization(hub, req);
      const { id } = params;
      if (!(await revokeKey(hub.sql, OPERATOR, org.id, id)).ok)
        throw new HttpProblem('api_key_not_found', `The organization has no API key ${id}.`);
      res.json({ id, status: 'revoked' });
    }),
  };
}
