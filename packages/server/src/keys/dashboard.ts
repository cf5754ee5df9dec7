import type { Sql } from 'postgres';
import { digest, displayPrefix, generateToken } from '../auth/secrets.js';
import { AccountRepository } from '../people/sql/accounts.js';
import { ApiKeyRepository } from './sql.js';
import { isUuid } from '../people/input.js';
import type { ApiKeyRow } from '../dashboard/types.js';

export type CreatedKey = { ok: true; id: string; prefix: string; secret: string } | { ok: false; reason: 'forbidden' };

/** The organization's keys, each with the name of the account that made it (null: the operator API). */
export async function apiKeys(sql: Sql, organizationId: string): Promise<ApiKeyRow[]> {
  if (!isUuid(organizationId)) return [];
  const [keys, creators] = await Promise.all([
    new ApiKeyRepository(sql).list(organizationId),
    new AccountRepository(sql).keyCreators(organizationId),
  ]);
  return keys.map((key) => ({ ...key, createdBy: creators.get(key.id) ?? null }));
}

/**
 * An owner makes a key: the role check (holding the membership FOR SHARE), the key and its
 * maker in one transaction. The secret exists only in the answer; the database keeps its digest.
 */
export async function createApiKey(
  sql: Sql,
  accountId: string,
  organizationId: string,
  key: { name: string; scopes: string[] },
): Promise<CreatedKey> {
  if (!isUuid(accountId) || !isUuid(organizationId)) return { ok: false, reason: 'forbidden' };
  const secret = generateToken('pk');
  const prefix = displayPrefix(secret, 'pk');
  return sql.begin(async (tx): Promise<CreatedKey> => {
    const accounts = new AccountRepository(tx);
    if ((await accounts.role(organizationId, accountId)) !== 'owner') return { ok: false, reason: 'forbidden' };
    // The repository takes the hub's Sql; it only runs tagged queries, which a transaction runs alike.
    const created = await new ApiKeyRepository(tx as unknown as Sql).create(
      organizationId,
      { name: key.name, prefix, digest: digest(secret), scopes: key.scopes },
      { kind: 'account', id: accountId },
    );
    await accounts.setKeyCreator(created.id, accountId);
    return { ok: true, id: created.id, prefix, secret };
  });
}

/**
 * An owner revokes a key through the hub's one revocation, which expires the key's unconsumed
 * enrollment tokens in its transaction. A member is refused before the key is looked up.
 */
export async function revokeApiKey(
  sql: Sql,
  accountId: string,
  organizationId: string,
  keyId: string,
): Promise<'revoked' | 'not_found' | 'forbidden'> {
  if (!isUuid(accountId) || !isUuid(organizationId)) return 'forbidden';
  if ((await new AccountRepository(sql).role(organizationId, accountId)) !== 'owner') return 'forbidden';
  if (!isUuid(keyId)) return 'not_found';
  return (await new ApiKeyRepository(sql).revoke(
    organizationId,
    keyId,
    { kind: 'account', id: accountId },
    { kind: 'api_key' },
  ))
    ? 'revoked'
    : 'not_found';
}
