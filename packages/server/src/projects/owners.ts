import type { Sql } from 'postgres';
import type { Db } from '../db/connect.js';
import { isUuid } from '@hub/schemas';
import { OrganizationRepository } from './sql.js';

/** Who changes an organization: the operator API (HUB_ADMIN_TOKEN), or a person in the dashboard. */
export type Changer = { kind: 'operator' } | { kind: 'account'; id: string };

export type Forbidden = { ok: false; reason: 'forbidden' };
const FORBIDDEN: Forbidden = { ok: false, reason: 'forbidden' };

/**
 * The one role check of changes to an organization (its projects, keys, daemons). The operator
 * makes them on the pool; an account only as one of the organization's owners, in a transaction
 * that holds its membership FOR SHARE until the change commits, so that a demotion or removal in
 * flight either commits first (and the change is refused) or waits for it.
 */
export async function asOwner<T>(
  sql: Sql,
  by: Changer,
  organizationId: string,
  change: (db: Db) => Promise<T>,
): Promise<T | Forbidden> {
  if (by.kind === 'operator') return change(sql);
  if (!isUuid(by.id) || !isUuid(organizationId)) return FORBIDDEN;
  return (await sql.begin(async (tx) =>
    (await new OrganizationRepository(tx).role(organizationId, by.id)) === 'owner' ? change(tx) : FORBIDDEN,
  )) as T | Forbidden;
}
