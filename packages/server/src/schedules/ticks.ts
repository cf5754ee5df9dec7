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
  const oldest = now.getTime() - MISSED_TICK_GRACE_MS;
  // The ordinary case: the tick after `due` is still ahead, so `due` is the latest that has come.
  const after = nextFireTimes(cron, timezone, due, 1)[0] ?? 'infinity';
  if (after === 'infinity' || after > now)
    return due.getTime() >= oldest
      ? { fire: due, skipped: undefined, next: after }
      : { fire: undefined, skipped: { from: due, to: now }, next: after };
  const next = nextFireTimes(cron, timezone, now, 1)[0] ?? 'infinity';
  // Later ticks than `due` that have also come: at most an hour's worth is looked through.
  let latest: Date | undefined = due.getTime() >= oldest ? due : undefined;
  for (let from = new Date(Math.max(due.getTime(), oldest - 1)); ;) {
    const batch = nextFireTimes(cron, timezone, from, 64).filter((tick) => tick <= now);
    if (batch.length === 0) break;
    latest = batch.at(-1) as Date;
    from = latest;
    if (batch.length < 64) break;
  }
  return { fire: latest, skipped: { from: due, to: latest ?? now }, next };
}

/** The delivery key of an entry's tick (DECISIONS.md): the same tick starts one run on any instance. */
export function tickDeliveryKey(entryId: string, tick: Date): string {
  return `schedule:${entryId}:${tick.toISOString()}`;
}
