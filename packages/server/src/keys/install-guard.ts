import type { TransactionSql } from 'postgres';

/** Rolls an install back: its key was revoked before it could commit. */
class KeyRevoked extends Error {}

/**
 * The last statement of an install's transaction: the installing key, unrevoked, locked FOR KEY
 * SHARE until the commit. A revocation (which locks the row FOR UPDATE, see sql.ts) that committed
 * first is seen, one in flight is waited for and then seen, and one that comes later waits for
 * this commit: either the install commits before the revocation, or it stores nothing. KEY SHARE,
 * not SHARE, so that the key check's lastUsedAt update on other requests does not wait for it.
 */
export async function keyStillValid(tx: TransactionSql, apiKeyId: string): Promise<void> {
  const [key] = await tx`select 1 from api_keys where id = ${apiKeyId} and revoked_at is null for key share`;
  if (key === undefined) throw new KeyRevoked();
}

/** Runs an install's transaction; `key_revoked` when `keyStillValid` rolled it back. */
export async function unlessRevoked<T>(install: Promise<T>): Promise<T | 'key_revoked'> {
  try {
    return await install;
  } catch (error) {
    if (error instanceof KeyRevoked) return 'key_revoked';
    throw error;
  }
}
