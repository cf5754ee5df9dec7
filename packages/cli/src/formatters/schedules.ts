// Fire times of schedules, as `hub validate` prints them and the editor's hover shows them: pure,
// and without the compiler (`hub deploy` shares this folder's issue lines and starts without it);
// the times come in computed (check.ts's timeSchedules, from the caller's clock).
import type { TimedSchedule } from '../check.js';

/**
 * The zone's short name at an instant, as people read it: CET, EST, BST; a GMT offset (GMT+5:30)
 * where no locale has a name. en-US names American zones, en-GB European ones.
 */
export function zoneAbbreviation(zone: string, at: Date): string {
  let fallback = '';
  for (const locale of ['en-US', 'en-GB']) {
    const name = new Intl.DateTimeFormat(locale, { timeZone: zone, timeZoneName: 'short' })
      .formatToParts(at)
      .find((part) => part.type === 'timeZoneName')?.value;
    if (name === undefined) continue;
    if (!/^GMT[+-]/.test(name)) return name;
    fallback ||= name;
  }
  return fallback;
}

/** `2026-11-30 02:30` in the zone. */
function wallClock(at: Date, zone: string): string {
  const parts: Record<string, string> = {};
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
  });
  for (const part of format.formatToParts(at)) parts[part.type] = part.value;
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`;
}

/**
 * A fire time in its zone and in UTC: `2026-11-30 02:30 CET (01:30 UTC)`, with the UTC date too
 * when it is another day (`2026-11-30 03:00 GMT+5:30 (2026-11-29 21:30 UTC)`).
 */
export function fireTime(at: Date, zone: string): string {
  const local = wallClock(at, zone);
  const utc = wallClock(at, 'UTC');
  const abbreviation = zoneAbbreviation(zone, at);
  // UTC itself once; London in winter is still `01:30 GMT (01:30 UTC)`: its zone, then UTC.
  if (abbreviation === 'UTC') return `${utc} UTC`;
  const sameDay = local.slice(0, 10) === utc.slice(0, 10);
  return `${local} ${abbreviation} (${sameDay ? utc.slice(11) : utc} UTC)`;
}

/** `schedule nightly[0] "30 2 * * 1-5" Europe/Berlin: next 2026-11-30 02:30 CET (01:30 UTC)`. */
export function scheduleLine(entry: TimedSchedule): string {
  const when = entry.next === null ? 'does not fire again' : `next ${fireTime(entry.next, entry.timezone)}`;
  return `schedule ${entry.trigger}[${entry.index}] ${JSON.stringify(entry.cron)} ${entry.timezone}: ${when}`;
}
