import type { Sql } from 'postgres';
import { AuditRepository, type AuditActor } from '../audit/index.js';
import { atomically } from '../db/transaction.js';
import type { Db } from '../db/connect.js';
import { keyStillValid, unlessRevoked } from '../keys/index.js';
import { OrganizationRepository } from '../projects/index.js';
import { destinationRefusal } from './destination.js';
import { newSecret } from './signing.js';
import { DeliveryLogRepository, EndpointRepository, type DeliveryRow, type EndpointRow } from './sql.js';

// The use cases of webhook endpoints, shared by the API (routes.ts: keys with webhooks:manage) and
// the dashboard (dashboard.ts: owners); each change is audited in its transaction.

/** Who manages endpoints: a key with webhooks:manage (its scope checked by the caller), or an owner in the dashboard. */
export type Manager = Extract<AuditActor, { kind: 'key' } | { kind: 'account' }>;

export type Forbidden = { ok: false; reason: 'forbidden' };

/**
 * An account manages only as an owner, one until the change commits (its membership held FOR
 * SHARE, as projects' asOwner holds it): a demotion in flight commits first, or waits.
 */
export async function ownerStill(tx: Db, by: Manager, organizationId: string): Promise<boolean> {
  return by.kind !== 'account' || (await new OrganizationRepository(tx).role(organizationId, by.id)) === 'owner';
}

export type Creation =
  | { ok: true; endpoint: EndpointRow; secret: string }
  | { ok: false; reason: 'destination'; message: string }
  | { ok: false; reason: 'key_revoked' }
  | Forbidden;

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
      if (!(await ownerStill(tx, by, organizationId))) return 'forbidden' as const;
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
  if (made === 'key_revoked' || made === 'forbidden') return { ok: false, reason: made };
  return { ok: true, endpoint: made, secret };
}

export async function deleteEndpoint(
  sql: Sql,
  by: Manager,
  organizationId: string,
  endpointId: string,
): Promise<EndpointRow | undefined | 'forbidden'> {
  return atomically(sql, async (tx) => {
    if (!(await ownerStill(tx, by, organizationId))) return 'forbidden';
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
): Promise<EndpointRow | undefined | 'forbidden'> {
  return atomically(sql, async (tx) => {
    if (!(await ownerStill(tx, by, organizationId))) return 'forbidden';
    const enabled = await new EndpointRepository(tx).enable(organizationId, endpointId);
    if (enabled?.changed === true)
      await new AuditRepository(tx).record(organizationId, 'webhook_endpoint.enabled', by, {
        endpointId,
        url: enabled.endpoint.url,
      });
    return enabled?.endpoint;
  });
}

export type Resending =
  { ok: true; delivery: DeliveryRow } | { ok: false; reason: 'not_found' | 'disabled' } | Forbidden;

/** A new delivery of a delivery's event to its endpoint (the same webhook-id), due now; not to a disabled endpoint. */
export async function resendDelivery(
  sql: Db,
  by: Manager,
  organizationId: string,
  endpointId: string,
  deliveryId: string,
): Promise<Resending> {
  return atomically(sql, async (tx): Promise<Resending> => {
    if (!(await ownerStill(tx, by, organizationId))) return { ok: false, reason: 'forbidden' };
    const endpoint = await new EndpointRepository(tx).find(organizationId, endpointId);
    if (endpoint === undefined) return { ok: false, reason: 'not_found' };
    if (endpoint.status === 'disabled') return { ok: false, reason: 'disabled' };
    const delivery = await new DeliveryLogRepository(tx).resend(endpointId, deliveryId);
    return delivery === undefined ? { ok: false, reason: 'not_found' } : { ok: true, delivery };
  });
}
