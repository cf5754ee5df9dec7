import type { Sql } from 'postgres';
import type { Db } from '../db/connect.js';
import { SessionRepository, type Liveness } from './sql/sessions.js';
import { newSecret, secretDigest, wellFormedSecret } from './secrets.js';
import type { DashboardStoreOptions, SessionView } from '../dashboard/types.js';

/** A session unused for 12 hours is over. */
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
/** A session is over 14 days after sign-in, however much it is used. */
export const SESSION_ABSOLUTE_MS = 14 * 24 * 60 * 60 * 1000;
/** last_seen_at moves on at most once a minute: a write on every page view would cost more than it tells. */
export const SESSION_TOUCH_MS = 60 * 1000;

/** Dashboard sessions: the cookie holds a random secret, the database its SHA-256. */
export class Sessions {
  readonly idleMs: number;
  readonly absoluteMs: number;
  readonly now: () => Date;

  constructor(
    private readonly sql: Sql,
    options: DashboardStoreOptions = {},
  ) {
    this.idleMs = options.idleMs ?? SESSION_IDLE_MS;
    this.absoluteMs = options.absoluteMs ?? SESSION_ABSOLUTE_MS;
    this.now = options.now ?? (() => new Date());
  }

  /** Starts a session (on `db`: a transaction, when it must be part of one); returns its secret. */
  async start(accountId: string, organizationId: string | undefined, db: Db = this.sql): Promise<string> {
    const secret = newSecret();
    const now = this.now();
    await new SessionRepository(db).create({
      digest: secretDigest(secret),
      accountId,
      organizationId,
      now,
      expiresAt: new Date(now.getTime() + this.absoluteMs),
    });
    return secret;
  }

  async view(secret: string): Promise<SessionView | undefined> {
    if (!wellFormedSecret(secret)) return undefined;
    const at = this.liveness();
    const repository = new SessionRepository(this.sql);
    const session = await repository.live(secretDigest(secret), at);
    if (session === undefined) return undefined;
    if (at.now.getTime() - session.lastSeenAt.getTime() >= SESSION_TOUCH_MS) await repository.touch(session.id, at.now);
    const organizations = session.memberships;
    const current = organizations.find((membership) => membership.organizationId === session.organizationId);
    return { account: session.account, organizations, current };
  }

  async end(secret: string): Promise<void> {
    if (wellFormedSecret(secret)) await new SessionRepository(this.sql).revoke(secretDigest(secret), this.now());
  }

  async switchOrganization(secret: string, slug: string): Promise<boolean> {
    if (!wellFormedSecret(secret)) return false;
    return new SessionRepository(this.sql).switchOrganization(secretDigest(secret), slug, this.liveness());
  }

  private liveness(): Liveness {
    const now = this.now();
    return { now, idleSince: new Date(now.getTime() - this.idleMs) };
  }
}
