import type { ResourceCatalog } from '@hub/compiler';
import type { AuditActor } from '../audit/index.js';
import type { Sql } from 'postgres';
import { digest, generateToken, isWellFormed } from '../auth/secrets.js';
import type { Db } from '../db/connect.js';
import { isUuid } from '@hub/schemas';
import { asOwner, type Changer, type Forbidden } from '../projects/index.js';
import { DaemonListRepository, type DaemonListRow } from './list.js';
import { DaemonRepository, type EnrollResult, type Runtime } from './sql.js';

// The use cases of daemons: enrollment (routes.ts, for keys and daemons), and the dashboard's
// listing and retirement (dashboard.ts).

export type IssuedToken = { ok: true; token: string; expiresAt: Date } | { ok: false; reason: 'key_revoked' };

/** A one-use enrollment token, ten minutes to live, issued by a key (which must still be valid when it is stored). */
export async function issueEnrollmentToken(sql: Sql, organizationId: string, keyId: string): Promise<IssuedToken> {
  const token = generateToken('et');
  const issued = await new DaemonRepository(sql).issueToken(organizationId, keyId, digest(token));
  return issued === undefined ? { ok: false, reason: 'key_revoked' } : { ok: true, token, expiresAt: issued.expiresAt };
}

/** Enrolls a daemon with a token; a malformed token is refused like an unknown one. */
export async function enrollDaemon(
  sql: Sql,
  daemon: { token: string; name: string; publicKey: object; runtimes: Runtime[]; replace: boolean },
): Promise<EnrollResult> {
  if (!isWellFormed(daemon.token, 'et')) return { ok: false, reason: 'token_invalid' };
  const { token, ...enrolled } = daemon;
  return new DaemonRepository(sql).enroll(digest(token), enrolled);
}

/** The organization's active daemons and their runtimes: what configurations and triggers may name. */
export const resourceCatalog = (db: Db, organizationId: string): Promise<ResourceCatalog> =>
  new DaemonRepository(db).catalog(organizationId);

/** A page of the organization's daemons (online by the dispatcher's `offlineAfterMs`); `more` when another follows. */
export async function listDaemons(
  sql: Sql,
  offlineAfterMs: number,
  organizationId: string,
  query: { retired: boolean; offset: number; limit: number },
): Promise<{ daemons: DaemonListRow[]; more: boolean }> {
  if (!isUuid(organizationId)) return { daemons: [], more: false };
  const rows = await new DaemonListRepository(sql, offlineAfterMs).list(organizationId, query);
  return { daemons: rows.slice(0, query.limit), more: rows.length > query.limit };
}

/** One daemon of the organization, retired or not. */
export async function findDaemon(
  sql: Sql,
  offlineAfterMs: number,
  organizationId: string,
  daemonId: string,
): Promise<DaemonListRow | undefined> {
  if (!isUuid(organizationId) || !isUuid(daemonId)) return undefined;
  return new DaemonListRepository(sql, offlineAfterMs).find(organizationId, daemonId);
}

export type Retirement = { ok: true } | { ok: false; reason: 'not_found' } | Forbidden;

/** Retires an active daemon: its signed requests are refused from now on, and its name is free. */
export async function retireDaemon(
  sql: Sql,
  by: Changer,
  organizationId: string,
  daemonId: string,
): Promise<Retirement> {
  return asOwner(sql, by, organizationId, async (db): Promise<Retirement> => {
    if (!isUuid(daemonId)) return { ok: false, reason: 'not_found' };
    const retired = await new DaemonRepository(db).retire(organizationId, daemonId, by);
    return retired ? { ok: true } : { ok: false, reason: 'not_found' };
  });
}

/**
 * A person's membership ends (removed, or they left): every active daemon they enrolled in the
 * organization is retired, one `daemon.retired` event each, by `actor`. Pass the transaction that
 * ends the membership, after the person's credentials are revoked.
 */
export const retireDaemonsEnrolledBy = (
  db: Db,
  organizationId: string,
  accountId: string,
  actor: AuditActor,
): Promise<{ id: string; name: string }[]> =>
  new DaemonRepository(db).retireEnrolledBy(organizationId, accountId, actor);

/** The names of the organization's active daemons the person enrolled: what their removal would retire. */
export async function daemonsEnrolledBy(sql: Sql, organizationId: string, accountId: string): Promise<string[]> {
  if (!isUuid(organizationId) || !isUuid(accountId)) return [];
  return new DaemonRepository(sql).namesEnrolledBy(organizationId, accountId);
}
