import type { Sql } from 'postgres';

/** One key's window after a counted failure: failures in it so far, and seconds until it ends. */
export interface CounterState {
  key: string;
  failures: number;
  resetSeconds: number;
}

/** Expired rows are deleted at most this often per instance, after a counted failure. */
const PRUNE_EVERY_MS = 60_000;
/** Far above any limit: a counter stops growing here (an integer column). */
const CEILING = 1_000_000_000;

/**
 * Failure counters in fixed windows (docs/decisions.md, Throttling): a key's window starts at its
 * first failure and lasts its policy's seconds; the next failure after it starts a new one.
 */
export class ThrottleRepository {
  private prunedAt = 0;

  constructor(private readonly sql: Sql) {}

  /**
   * Counts one failure under each key, in one statement (an upsert, atomic per row), and returns
   * each key's state. Keys are taken in name order, so statements that share keys never deadlock.
   */
  async fail(counts: { key: string; windowSeconds: number }[]): Promise<CounterState[]> {
    const sorted = [...counts].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const rows = await this.sql<CounterState[]>`
      insert into throttle_counters as c (key, failures, resets_at)
      select key, 1, now() + make_interval(secs => seconds)
      from unnest(${sorted.map((count) => count.key)}::text[], ${sorted.map((count) => count.windowSeconds)}::int[]) as t (key, seconds)
      on conflict (key) do update set
        failures = case when c.resets_at <= now() then 1 else least(c.failures + 1, ${CEILING}) end,
        resets_at = case when c.resets_at <= now() then excluded.resets_at else c.resets_at end
      returning key, failures, greatest(1, ceil(extract(epoch from resets_at - now())))::int as "resetSeconds"`;
    await this.pruneNow();
    return rows;
  }

  /** Deletes the rows whose window has ended (a failure there would start a new one anyway). */
  private async pruneNow(): Promise<void> {
    const now = Date.now();
    if (now - this.prunedAt < PRUNE_EVERY_MS) return;
    this.prunedAt = now;
    await this.sql`delete from throttle_counters where resets_at <= now()`;
  }
}
