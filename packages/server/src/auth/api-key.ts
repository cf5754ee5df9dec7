import type { Request, RequestHandler } from 'express';
import type { Fragment, Sql } from 'postgres';
import type { Db } from '../db/connect.js';
import { contextOf } from '../http/context.js';
import { HttpProblem } from '../problems/problem.js';
import { digest, displayPrefix, isWellFormed } from './secrets.js';
import type { Throttle } from './throttle.js';

export const SCOPES = [
  'projects:read',
  'configuration:validate',
  'configuration:install',
  'runs:dispatch',
  'daemons:enroll',
  'runs:read',
  'audit:read',
  'webhooks:manage',
] as const;
export type Scope = (typeof SCOPES)[number];

/** The scopes of a CLI credential (`hub login`): those of the CLI's operations (all but audit:read and webhooks:manage). */
export const CLI_SCOPES = [
  'projects:read',
  'configuration:validate',
  'configuration:install',
  'runs:dispatch',
  'runs:read',
  'daemons:enroll',
] as const satisfies readonly Scope[];

/**
 * How long a CLI credential lives: `idleDays` after its last use (its creation, if never used) and
 * `lifetimeDays` after its creation, whichever comes first (HUB_CLI_CREDENTIAL_IDLE_DAYS,
 * HUB_CLI_CREDENTIAL_LIFETIME_DAYS). An expired one is refused like a revoked one. API keys do not
 * expire: their owners revoke them.
 */
export interface CliCredentialExpiry {
  idleDays: number;
  lifetimeDays: number;
}

export const DEFAULT_CLI_CREDENTIAL_EXPIRY: CliCredentialExpiry = { idleDays: 90, lifetimeDays: 365 };

/** The one 401 of bearer operations: also a key revoked while its request was being served. */
export const unauthorized = (headers: Record<string, string> = {}) =>
  new HttpProblem(
    'unauthorized',
    'Send a valid, unrevoked API key or CLI credential as Authorization: Bearer <credential>.',
    {
      headers: { 'WWW-Authenticate': 'Bearer realm="hub"', ...headers },
    },
  );

/**
 * A read done in the key check's own statement, for a route that needs nothing else: a column
 * expression in which `key.organization_id` is the checked key's organization. Its value is left
 * in the request context as `prefetched`. One round trip instead of two on the hottest reads.
 */
export type Prefetch = (sql: Sql, req: Request) => Fragment;

/**
 * Authenticates the organization API key or CLI credential (one table holds both) and checks
 * one scope, or none when `scope` is undefined. Unknown, malformed, revoked and expired (CLI
 * credentials past `expiry`) keys get the same 401; a valid key without the scope gets a 403 naming it. On success the
 * key's lastUsedAt is set in the same statement that checks it (to the second), and revocation
 * takes effect on the very next request on every instance: nothing is cached.
 *
 * With a `throttle`, each credential refused is counted against the client's address and, when it
 * is well formed, its key prefix (a request without one is not counted): the 401 carries the
 * RateLimit headers, and past a limit the answer is 429 instead. The valid key's path is unchanged.
 */
export function requireScope(
  sql: Sql,
  scope: Scope | undefined,
  prefetch?: Prefetch,
  throttle?: Throttle,
  expiry: CliCredentialExpiry = DEFAULT_CLI_CREDENTIAL_EXPIRY,
): RequestHandler {
  const refuse = async (req: Request, keyPrefix?: string) =>
    unauthorized(await throttle?.failedAuthentication(req, keyPrefix));
  return async (req, _res, next) => {
    const token = bearer(req.get('authorization'));
    if (token === undefined) throw unauthorized();
    const kind = isWellFormed(token, 'pk') ? 'pk' : isWellFormed(token, 'cli') ? 'cli' : undefined;
    if (kind === undefined) throw await refuse(req);
    const key = digest(token);
    const [granted] = await sql<{ id: string; organizationId: string; prefetched: unknown }[]>`
      with ${keyCheck(sql, { digest: key, scope, expiry })}
      select id, organization_id as "organizationId", (select count(*) from touched) as touched,
        ${prefetch === undefined ? sql`null` : prefetch(sql, req)} as prefetched
      from key`;
    if (granted !== undefined) {
      const context = contextOf(req);
      context.auth = { keyId: granted.id, organizationId: granted.organizationId };
      context.prefetched = granted.prefetched;
      next();
      return;
    }
    const [exists] = await sql`
      select 1 from api_keys
      where digest = ${key} and revoked_at is null and (kind <> 'cli' or (
        coalesce(last_used_at, created_at) > now() - make_interval(days => ${expiry.idleDays}::int)
        and created_at > now() - make_interval(days => ${expiry.lifetimeDays}::int)))`;
    if (exists === undefined) throw await refuse(req, displayPrefix(token, kind));
    throw new HttpProblem('insufficient_scope', `This credential lacks the scope ${scope}.`, {
      extensions: { requiredScope: scope },
    });
  };
}

/**
 * The key check, as the CTEs `key` (id, organization_id, last_used_at) and `touched` of a
 * statement: the unrevoked key with this digest and the scope (any, when undefined), unexpired when
 * it is a CLI credential (`expiry`: idle since its last use, or its creation, and past its
 * lifetime; a condition of the same statement, no other round trip), and its
 * lastUsedAt moved on when it is more than a second old (a write per request would cost more than
 * the request; the second is the precision lastUsedAt is kept to). The scope is a parameter, null
 * for "any": one statement text for every route.
 *
 * `expected`: the key must also be this one, of this organization (a key a statement was planned
 * for, runs/dispatch/sql.ts), and is locked FOR KEY SHARE until commit, so that a revocation waits
 * for what the statement writes. The organization is compared with IS NOT DISTINCT FROM, which no
 * index serves: the key is always read by its primary key or its digest.
 *
 * Two whole texts rather than nested fragments for their difference: each fragment is a query
 * object built on every request (a few microseconds; one for the scope once cost the projects list
 * about a sixth of its throughput in bench:http), and these are the hottest statements.
 */
export function keyCheck(
  sql: Db,
  check: {
    digest: Buffer;
    scope: Scope | undefined;
    expiry: CliCredentialExpiry;
    expected?: { keyId: string; organizationId: string };
  },
): Fragment {
  const { digest, expected } = check;
  const scope = check.scope ?? null;
  const { idleDays, lifetimeDays } = check.expiry;
  return expected === undefined
    ? sql`key as (
        select id, organization_id, last_used_at from api_keys
        where digest = ${digest} and revoked_at is null and (${scope}::text is null or ${scope}::text = any (scopes))
          and (kind <> 'cli' or (coalesce(last_used_at, created_at) > now() - make_interval(days => ${idleDays}::int)
            and created_at > now() - make_interval(days => ${lifetimeDays}::int)))
      ), touched as (
        update api_keys set last_used_at = now() from key
        where api_keys.id = key.id and (key.last_used_at is null or key.last_used_at < now() - interval '1 second')
        returning 1
      )`
    : sql`key as (
        select id, organization_id, last_used_at from api_keys
        where digest = ${digest} and revoked_at is null and (${scope}::text is null or ${scope}::text = any (scopes))
          and (kind <> 'cli' or (coalesce(last_used_at, created_at) > now() - make_interval(days => ${idleDays}::int)
            and created_at > now() - make_interval(days => ${lifetimeDays}::int)))
          and id = ${expected.keyId} and organization_id is not distinct from ${expected.organizationId}::uuid
        for key share
      ), touched as (
        update api_keys set last_used_at = now() from key
        where api_keys.id = key.id and (key.last_used_at is null or key.last_used_at < now() - interval '1 second')
        returning 1
      )`;
}

/** Why a credential that was valid when a long answer (an output stream) began no longer is. */
export type CredentialEnd = 'credential_revoked' | 'credential_expired' | 'not_a_member';

/**
 * The credential `keyId` checked again, for an answer that outlives its request's key check (an
 * output stream re-checks it every few seconds): undefined while it still holds, else why it no
 * longer does. A CLI credential's person no longer a member of its organization comes first (their
 * removal also revokes it), then a revocation (a key deleted with its organization is one), then
 * the expiry. Read only: a stream does not count as a use of its credential (lastUsedAt).
 */
export async function credentialEnded(
  sql: Sql,
  keyId: string,
  expiry: CliCredentialExpiry,
): Promise<CredentialEnd | undefined> {
  const [row] = await sql<{ revoked: boolean; expired: boolean; member: boolean }[]>`
    select k.revoked_at is not null as revoked,
      k.kind = 'cli' and not (coalesce(k.last_used_at, k.created_at) > now() - make_interval(days => ${expiry.idleDays}::int)
        and k.created_at > now() - make_interval(days => ${expiry.lifetimeDays}::int)) as expired,
      k.kind <> 'cli' or exists (
        select 1 from organization_members m where m.organization_id = k.organization_id and m.account_id = k.account_id
      ) as member
    from api_keys k where k.id = ${keyId}`;
  if (row === undefined) return 'credential_revoked';
  if (!row.member) return 'not_a_member';
  if (row.revoked) return 'credential_revoked';
  return row.expired ? 'credential_expired' : undefined;
}

export function bearer(header: string | undefined): string | undefined {
  const match = header === undefined ? null : /^Bearer +(\S+) *$/i.exec(header);
  return match?.[1];
}
