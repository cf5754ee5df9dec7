import { closest } from '@hub/schemas';

/** What a schedule's `timezone` is: a zone to read the cron in, or why it is not one. */
export type ZoneCheck = { ok: true } | { ok: false; message: string; suggestion?: string };

let listed: readonly string[] | undefined;

/**
 * The zone names the runtime lists, with UTC (which Intl leaves out). ICU lists some zones under
 * their older IANA names (Asia/Calcutta rather than Asia/Kolkata): both are accepted, see checkZone.
 */
export function timeZoneNames(): readonly string[] {
  listed ??= ['UTC', ...Intl.supportedValuesOf('timeZone').filter((name) => name !== 'UTC')];
  return listed;
}

/** Whether the runtime's time zone data knows `name` (in any case: Intl ignores case). */
function runtimeKnows(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/**
 * An IANA zone name the runtime knows, written in its own case: `europe/berlin` works in Intl but
 * is not how the zone is named, and the dashboard and the run records show the name as written.
 * Names the runtime knows but does not list (Asia/Kolkata, US/Eastern) are accepted when each part
 * starts with a capital, as IANA names do; offsets such as +02:00 are not names.
 */
export function checkZone(name: string): ZoneCheck {
  const names = timeZoneNames();
  if (names.includes(name)) return { ok: true };
  const lower = name.toLowerCase();
  const sameLetters = names.find((candidate) => candidate.toLowerCase() === lower);
  if (sameLetters !== undefined) return caseOnly(name, sameLetters);
  if (/^[A-Z][^/]*(?:\/[A-Z][^/]*)*$/.test(name) && runtimeKnows(name)) return { ok: true };
  if (runtimeKnows(name) && /^[a-z]/i.test(name)) {
    const capitalized = name.replace(
      /(^|[/_-])([a-z])/g,
      (_, before: string, letter: string) => before + letter.toUpperCase(),
    );
    const suggestion = capitalized !== name && runtimeKnows(capitalized) ? capitalized : undefined;
    if (suggestion !== undefined) return caseOnly(name, suggestion);
  }
  const suggestion = nearest(name, names);
  const message =
    suggestion === undefined
      ? `"${name}" is not a time zone name; write an IANA name such as Europe/Berlin, or UTC.`
      : `"${name}" is not a time zone name; did you mean "${suggestion}"?`;
  return suggestion === undefined ? { ok: false, message } : { ok: false, message, suggestion };
}

function caseOnly(name: string, suggestion: string): ZoneCheck {
  return {
    ok: false,
    message: `Time zone names are written in their own case; did you mean "${suggestion}"?`,
    suggestion,
  };
}

/**
 * The closest zone name: among the zones of the same area (Europe/…) when the area is known,
 * else among those whose city starts with the same letter, as closest() compares a few hundred.
 */
function nearest(name: string, names: readonly string[]): string | undefined {
  const slash = name.indexOf('/');
  const area = slash < 0 ? '' : name.slice(0, slash + 1).toLowerCase();
  const city = (name.slice(name.lastIndexOf('/') + 1)[0] ?? '').toLowerCase();
  const sameArea = area === '' ? [] : names.filter((candidate) => candidate.toLowerCase().startsWith(area));
  const pool =
    sameArea.length > 0
      ? sameArea
      : names.filter((candidate) => (candidate.slice(candidate.lastIndexOf('/') + 1)[0] ?? '').toLowerCase() === city);
  return closest(name, pool) ?? (sameArea.length > 0 ? undefined : closest(name, ['UTC']));
}
