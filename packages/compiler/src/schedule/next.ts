import { Cron } from 'croner';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * The next `count` fire times of a schedule entry strictly after `after`, as instants (minute
 * boundaries). Pure: the caller gives `now`. The cron expression must have passed the compiler's
 * check (schedule/cron.ts); `timezone` is an IANA name the runtime knows.
 *
 * Cron's arithmetic runs on local wall-clock times (croner, in UTC, so that it sees no daylight
 * saving); each local time is then placed in the zone as DECISIONS.md says: a local time in a gap
 * fires at the first minute after the gap, and one that happens twice fires once, at its first
 * occurrence. Two local times that land on the same instant (several in one gap) fire once.
 */
export function nextFireTimes(cron: string, timezone: string, after: Date, count: number): Date[] {
  const pattern = patternOf(cron);
  const zone = zoneOf(timezone);
  const fires: Date[] = [];
  const afterMs = after.getTime();
  // From the local time of `after`; from three hours before it when the offset changed within
  // them: `after` may be in a repeated hour, whose earlier local times are still ahead of it.
  const back = zone.offset(afterMs - 3 * HOUR) === zone.offset(afterMs) ? 0 : 3 * HOUR;
  let local = new Date(Math.floor(afterMs / MINUTE) * MINUTE + zone.offset(afterMs) * MINUTE - back);
  let last = afterMs;
  // A cron that never matches (February 30th) ends the search after a bounded number of years.
  for (let guard = 0; fires.length < count && guard < 10_000; guard++) {
    const next = pattern.nextRun(local);
    if (next === null) break;
    local = next;
    const instant = zone.place(next.getTime());
    if (instant <= last) continue;
    fires.push(new Date(instant));
    last = instant;
  }
  return fires;
}

/** Parsed expressions, kept: a scheduler asks for the same few thousand again every minute. */
const patterns = new Map<string, Cron>();
const PATTERNS_KEPT = 10_000;

function patternOf(cron: string): Cron {
  let pattern = patterns.get(cron);
  if (pattern === undefined) {
    pattern = new Cron(cron, { timezone: 'UTC', mode: '5-part', paused: true });
    if (patterns.size >= PATTERNS_KEPT) patterns.delete(patterns.keys().next().value as string);
    patterns.set(cron, pattern);
  }
  return pattern;
}

interface Zone {
  /** The zone's offset from UTC at an instant, in minutes. */
  offset(instant: number): number;
  /** The instant of a local wall-clock time (given as if it were UTC), by the gap and repeat rules. */
  place(local: number): number;
}

/** UTC has no offset and no clock changes: no Intl needed. */
const zones = new Map<string, Zone>([['UTC', { offset: () => 0, place: (local) => local }]]);

function zoneOf(timezone: string): Zone {
  const known = zones.get(timezone);
  if (known !== undefined) return known;
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone: timezone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
  });
  const offset = (instant: number): number => {
    const parts: Record<string, number> = {};
    for (const part of format.formatToParts(new Date(instant))) parts[part.type] = Number(part.value);
    const local = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!);
    return Math.round((local - Math.floor(instant / MINUTE) * MINUTE) / MINUTE);
  };
  const localOf = (instant: number) => instant + offset(instant) * MINUTE;
  const place = (local: number): number => {
    // The offsets in force around this local time; each that maps back to it gives an instant.
    const offsets = new Set([offset(local - DAY), offset(local), offset(local + DAY)]);
    const instants = [...offsets].map((minutes) => local - minutes * MINUTE).filter((at) => localOf(at) === local);
    if (instants.length > 0) return Math.min(...instants);
    // In a gap: the first minute whose local time is past it, by bisection over whole minutes.
    let low = local - Math.max(...offsets) * MINUTE - MINUTE;
    let high = local - Math.min(...offsets) * MINUTE + MINUTE;
    while (high - low > MINUTE) {
      const middle = low + Math.floor((high - low) / 2 / MINUTE) * MINUTE;
      if (localOf(middle) > local) high = middle;
      else low = middle;
    }
    return high;
  };
  const zone = { offset, place };
  zones.set(timezone, zone);
  return zone;
}
