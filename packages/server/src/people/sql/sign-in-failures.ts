import type { Db } from '../../db/connect.js';

// The advisory lock class of sign-in keys (the second key is the key's hash).
const LOCK_CLASS = 7311;

/**
 * Failed sign-ins, one row per key (`account:<email>`, `address:<ip>`) and attempt, counted in
 * PostgreSQL so that throttling holds across hub instances.
 */
export class SignInFailureRepository {
  constructor(private readonly sql: Db) {}

  /**
   * Records an attempt under each key before its password is checked, unless a key already
   * has `limit` rows since `since`: then nothing is recorded and the answer is when the first
   * of them leaves the window (the earliest another attempt can pass). The keys are locked
   * (advisory, in name order) for the count and the insert, so concurrent attempts on any
   * instance are counted one after the other and no more than `limit` pass. Run it in a
   * transaction (`countAttempt`): the locks are held until it ends.
   */
  async recordUnlessOver(
    keys: { key: string; limit: number }[],
    at: Date,
    since: Date,
  ): Promise<{ ids: string[] } | { retryAt: Date }> {
    const names = keys.map(({ key }) => key).sort();
    for (const key of names) await this.sql`select pg_advisory_xact_lock(${LOCK_CLASS}, hashtext(${key}))`;
    const counts = await this.sql<{ key: string; count: number; oldest: Date }[]>`
      select key, count(*)::int as count, min(failed_at) as oldest from sign_in_failures
      where key = any(${names}::text[]) and failed_at > ${since}
      group by key`;
    const over = counts.filter((row) => row.count >= (keys.find(({ key }) => key === row.key)?.limit ?? Infinity));
    if (over.length > 0) {
      const windowMs = at.getTime() - since.getTime();
      return { retryAt: new Date(Math.max(...over.map((row) => row.oldest.getTime() + windowMs))) };
    }
    const rows = await this.sql<{ id: string }[]>`
      insert into sign_in_failures (key, failed_at) select unnest(${names}::text[]), ${at} returning id`;
    return { ids: rows.map((row) => String(row.id)) };
  }

  /** Drops rows recorded for an attempt that turned out not to be a failure. */
  async forget(ids: string[]): Promise<void> {
    await this.sql`delete from sign_in_failures where id = any(${ids}::bigint[])`;
  }

  /** Clears a key's failures (a successful sign-in clears its account's). */
  async clear(key: string): Promise<void> {
    await this.sql`delete from sign_in_failures where key = ${key}`;
  }

  /** Drops rows too old to count. */
  async prune(before: Date): Promise<void> {
    await this.sql`delete from sign_in_failures where failed_at <= ${before}`;
  }
}
