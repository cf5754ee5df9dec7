import type { Sql } from 'postgres';
import { digest, displayPrefix, generateToken } from '../auth/secrets.js';
import { isUuid } from '@hub/schemas';
import { asOwner, type Changer, type Forbidden } from '../projects/index.js';
import { ApiKeyRepository, type ApiKeyListing, type CredentialRecord } from './sql.js';

// The use cases of API keys, shared by the operator API (operator-routes.ts) and the dashboard
// (dashboard.ts); the role check is projects' asOwner.

export interface CreatedKey {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  /** The secret exists only here; the database keeps its digest. */
  secret: string;
  createdAt: Date;
}

export type KeyCreation = { ok: true; key: CreatedKey } | Forbidden;

/** A new key of the organization, its scopes a set; an account making it is recorded as its maker. */
export async function createKey(
  sql: Sql,
  by: Changer,
  organizationId: string,
  key: { name: string; scopes: string[] },
): Promise<KeyCreation> {
  const secret = generateToken('pk');
  const prefix = displayPrefix(secret, 'pk');
  const scopes = [...new Set(key.scopes)];
  return asOwner(sql, by, organizationId, async (db): Promise<KeyCreation> => {
    const created = await new ApiKeyRepository(db).create(
      organizationId,
      { name: key.name, prefix, digest: digest(secret), scopes },
      by,
    );
    return { ok: true, key: { id: created.id, name: key.name, prefix, scopes, secret, createdAt: created.createdAt } };
  });
}

/** The organization's API keys (not CLI credentials), oldest first, revoked ones too. */
export const listKeys = (sql: Sql, organizationId: string): Promise<ApiKeyListing[]> =>
  new ApiKeyRepository(sql).list(organizationId);

export type KeyRevocation = { ok: true } | { ok: false; reason: 'not_found' } | Forbidden;

/**
 * Revokes a key through the hub's one revocation (sql.ts), which expires the key's unconsumed
 * enrollment tokens with it. The operator may revoke any credential of the organization; an owner
 * in the dashboard revokes API keys (people revoke their own CLI credentials on their page).
 */
export async function revokeKey(sql: Sql, by: Changer, organizationId: string, keyId: string): Promise<KeyRevocation> {
  return asOwner(sql, by, organizationId, async (db): Promise<KeyRevocation> => {
    if (!isUuid(keyId)) return { ok: false, reason: 'not_found' };
    const revoked = await new ApiKeyRepository(db).revoke(
      organizationId,
      keyId,
      by,
      by.kind === 'account' ? { kind: 'api_key' } : {},
    );
    return revoked ? { ok: true } : { ok: false, reason: 'not_found' };
  });
}

/** What the bearer credential `keyId` is (`GET /api/v1/credential`). */
export const credential = (sql: Sql, keyId: string): Promise<CredentialRecord | undefined> =>
  new ApiKeyRepository(sql).credential(keyId);
