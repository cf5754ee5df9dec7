import { nextFireTimes } from '@hub/compiler';

const HOUR = 3_600_000;

/** How late a missed tick may be and still fire when a hub returns (DECISIONS.md, Schedules). */
export const MISSED_TICK_GRACE_MS = HOUR;

/** What to do with an entry whose tick `due` has come, at `now`. */
export interface TickPlan {
  /** The tick to fire now, or undefined when every due tick is over an hour late. */
  fire: Date | undefined;
  /** Ticks before `fire` that no hub fired in time (a downtime), none of which will fire. */
  skipped: { from: Date; to: Date } | undefined;
  /** The entry's next tick after now; 'infinity' when it never matches again. */
  next: Date | 'infinity';
}

/**
 * The tick to fire: `due` itself in the ordinary case; after a downtime (no hub ran at a tick),
 * the latest tick at or before `now` if it is at most an hour late, the earlier ones skipped.
 */
export function planTick(entry: { cron: string; timezone: string }, due: Date, now: Date): TickPlan {
  const { cron, timezone } = entry;
  const next = nextFireTimes(cron, timezone, now, 1)[0] ?? 'infinity';
  const oldest = now.getTime() - MISSED_TICK_GRACE_MS;
  // Later ticks than `due` that have also come: at most an hour's worth is looked through.
  const from = new Date(Math.max(due.getTime(), oldest - 1));
  let latest: Date | undefined = due.getTime() >= oldest ? due : undefined;
  for (let after = from; ;) {
    const batch = nextFireTimes(cron, timezone, after, 64).filter((tick) => tick <= now);
    if (batch.length === 0) break;
    latest = batch.at(-1);
    after = latest as Date;
    if (batch.length < 64) break;
  }
  const skipped = latest?.getTime() === due.getTime() ? undefined : { from: due, to: latest ?? now };
  return { fire: latest, skipped, next };
}

/** The delivery key of an entry's tick (DECISIONS.md): the same tick starts one run on any instance. */
export function tickDeliveryKey(entryId: string, tick: Date): string {
  return `schedule:${entryId}:${tick.toISOString()}`;
}
