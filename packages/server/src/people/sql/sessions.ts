import type { Db } from '../../db/connect.js';
import type { AccountRow, MembershipRow } from './accounts.js';

export interface LiveSession {
  id: string;
  lastSeenAt: Date;
  /** The organization the session works in, if any. */
  organizationId: string | null;
  account: AccountRow;
  /** The account's organizations, ordered by slug. */
  memberships: MembershipRow[];
}

/** When a session counts as live: not revoked, before its absolute expiry, seen recently enough. */
export interface Liveness {
  now: Date;
  /** A session last seen at or before this instant is idle-expired. */
  idleSince: Date;
}

/** Dashboard sessions, each known by the SHA-256 digest of its cookie's secret. */
export class SessionRepository {
  constructor(private readonly sql: Db) {}

  async create(session: {
    digest: Buffer;
    accountId: string;
    organizationId: string | undefined;
    now: Date;
    expiresAt: Date;
  }): Promise<void> {
    await this.sql`
      insert into sessions (digest, account_id, organization_id, created_at, last_seen_at, expires_at)
      values (${session.digest}, ${session.accountId}, ${session.organizationId ?? null}, ${session.now}, ${session.now}, ${session.expiresAt})`;
  }

  /** The live session of this digest with its account and memberships, in one statement. */
  async live(digest: Buffer, at: Liveness): Promise<LiveSession | undefined> {
    const [row] = await this.sql<(Omit<LiveSession, 'account'> & AccountRow & { accountId: string })[]>`
      select s.id, s.last_seen_at as "lastSeenAt", s.organization_id as "organizationId",
             a.id as "accountId", a.email, a.name,
             coalesce((
               select json_agg(json_build_object('organizationId', o.id, 'slug', o.slug, 'name', o.name, 'role', m.role) order by o.slug)
               from organization_members m join organizations o on o.id = m.organization_id
               where m.account_id = a.id), '[]'::json) as memberships
      from sessions s join accounts a on a.id = s.account_id
      where s.digest = ${digest} and ${live(this.sql, at)}`;
    if (row === undefined) return undefined;
    const { accountId, email, name, ...session } = row;
    return { ...session, account: { id: accountId, email, name } };
  }

  /** Moves last_seen_at on to `now`. */
  async touch(id: string, now: Date): Promise<void> {
    await this.sql`update sessions set last_seen_at = ${now} where id = ${id} and last_seen_at < ${now}`;
  }

  async revoke(digest: Buffer, now: Date): Promise<void> {
    await this.sql`update sessions set revoked_at = ${now} where digest = ${digest} and revoked_at is null`;
  }

  /** Points the live session at one of its account's organizations; false when not one of them. */
  async switchOrganization(digest: Buffer, slug: string, at: Liveness): Promise<boolean> {
    const rows = await this.sql`
      update sessions s set organization_id = o.id
      from organizations o join organization_members m on m.organization_id = o.id
      where s.digest = ${digest} and ${live(this.sql, at)}
        and o.slug = ${slug} and m.account_id = s.account_id
      returning s.id`;
    return rows.length === 1;
  }
}

/** The condition for a live session, on the table aliased `s`. */
function live(sql: Db, at: Liveness) {
  return sql`s.revoked_at is null and s.expires_at > ${at.now} and s.last_seen_at > ${at.idleSince}`;
}
