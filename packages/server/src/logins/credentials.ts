// A person's CLI credentials (hub_cli_ keys made by `hub login`): listed and revoked on the
// account page, or revoked by their holder (`hub logout`, RFC 7009).
import type { Sql } from 'postgres';
import { isUuid } from '@hub/schemas';
import type { CliCredentialExpiry } from '../auth/api-key.js';
import { digest, isWellFormed } from '../auth/secrets.js';
import { ApiKeyRepository, type CliCredentialRecord } from '../keys/index.js';

/** The account's CLI credentials in every organization, newest first, the revoked and expired ones included. */
export async function cliCredentials(
  sql: Sql,
  accountId: string,
  expiry: CliCredentialExpiry,
): Promise<CliCredentialRecord[]> {
  return isUuid(accountId) ? new ApiKeyRepository(sql).cliCredentials(accountId, expiry) : [];
}

/** The person's own credential, through the hub's one revocation (its enrollment tokens expire with it). */
export async function revokeCliCredential(
  sql: Sql,
  accountId: string,
  credentialId: string,
): Promise<'revoked' | 'not_found'> {
  if (!isUuid(accountId) || !isUuid(credentialId)) return 'not_found';
  const keys = new ApiKeyRepository(sql);
  const organizationId = await keys.cliCredentialOrganization(accountId, credentialId);
  if (organizationId === undefined) return 'not_found';
  const revoked = await keys.revoke(
    organizationId,
    credentialId,
    { kind: 'account', id: accountId },
    { kind: 'cli', accountId },
  );
  return revoked ? 'revoked' : 'not_found';
}

/**
 * The holder revokes its credential (the credential itself is the actor of the event).
 * `api_key`: an organization's API key, which only its owners revoke; `unknown`: nothing to revoke.
 */
export async function revokeCliToken(sql: Sql, token: string): Promise<'revoked' | 'unknown' | 'api_key'> {
  if (isWellFormed(token, 'pk')) return 'api_key';
  if (!isWellFormed(token, 'cli')) return 'unknown';
  const keys = new ApiKeyRepository(sql);
  const secret = await keys.secret(digest(token));
  if (secret === undefined || secret.kind !== 'cli') return 'unknown';
  await keys.revoke(secret.organizationId, secret.id, { kind: 'key', id: secret.id }, { kind: 'cli' });
  return 'revoked';
}
