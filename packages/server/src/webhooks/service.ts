import type { Sql } from 'postgres';
import { AuditRepository, type AuditActor } from '../audit/index.js';
import { atomically } from '../db/transaction.js';
import { keyStillValid, unlessRevoked } from '../keys/index.js';
import { destinationRefusal } from './destination.js';
import { newSecret } from './signing.js';
import { EndpointRepository, type EndpointRow } from './sql.js';

// The use cases of webhook endpoints, shared by the API (routes.ts: keys with webhooks:manage) and
// the dashboard (dashboard.ts: owners); each change is audited in its transaction.

/** Who manages endpoints: a key with webhooks:manage, or an owner in the dashboard (checked by the caller). */
export type Manager = Extract<AuditActor, { kind: 'key' } | { kind: 'account' }>;

export type Creation =
  | { ok: true; endpoint: EndpointRow; secret: string }
  | { ok: false; reason: 'destination'; message: string }
  | { ok: false; reason: 'key_revoked' };

export async function createEndpoint(
  sql: Sql,
  by: Manager,
  organizationId: string,
  request: { url: string; events: string[]; description?: string | undefined },
  allowPrivate: boolean,
): Promise<Creation> {
  const refusal = await destinationRefusal(request.url, allowPrivate);
  if (refusal !== undefined) return { ok: false, reason: 'destination', message: refusal };
  const secret = newSecret();
  // One type listed twice is the same subscription; `*` with others is `*`.
  const events = request.events.includes('*') ? ['*'] : [...new Set(request.events)];
  const made = await unlessRevoked(
    atomically(sql, async (tx) => {
      const endpoint = await new EndpointRepository(tx).create(organizationId, {
        url: request.url,
        events,
        description: request.description ?? null,
        secret,
      });
      await new AuditRepository(tx).record(organizationId, 'webhook_endpoint.created', by, {
        endpointId: endpoint.id,
        url: endpoint.url,
      });
      // The creating key, unrevoked until the commit (keys/install-guard.ts).
      if (by.kind === 'key') await keyStillValid(tx, by.id);
      return endpoint;
    }),
  );
  return made === 'key_revoked' ? { ok: false, reason: 'key_revoked' } : { ok: true, endpoint: made, secret };
}

export async function deleteEndpoint(
  sql: Sql,
  by: Manager,
  organizationId: string,
  endpointId: string,
): Promise<EndpointRow | undefined> {
  return atomically(sql, async (tx) => {
    const endpoint = await new EndpointRepository(tx).delete(organizationId, endpointId);
    if (endpoint !== undefined)
      await new AuditRepository(tx).record(organizationId, 'webhook_endpoint.deleted', by, {
        endpointId,
        url: endpoint.url,
      });
    return endpoint;
  });
}

export async function enableEndpoint(
  sql: Sql,
  by: Manager,
  organizationId: string,
  endpointId: string,
): Promise<EndpointRow | undefined> {
  return atomically(sql, async (tx) => {
    const enabled = await new EndpointRepository(tx).enable(organizationId, endpointId);
    if (enabled?.changed === true)
      await new AuditRepository(tx).record(organizationId, 'webhook_endpoint.enabled', by, {
        endpointId,
        url: enabled.endpoint.url,
      });
    return enabled?.endpoint;
  });
}
