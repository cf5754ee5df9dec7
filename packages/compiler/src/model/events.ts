/** What a GitHub kind's run gives its templates (DECISIONS.md, "Runs that no person dispatches"). */
const GITHUB: Readonly<Record<string, string>> = {
  repository: 'The repository, as owner/name.',
  number: "The issue's or pull request's number.",
  title: "The issue's or pull request's title.",
  url: "The issue's or pull request's address on GitHub.",
  kind: '`issue` or `pull_request`.',
  branch: "A pull request's head branch; empty for an issue.",
};

/**
 * The {{ event.<name> }} values each kind of `on` gives its runs, each with what it holds. A
 * template may use those that every kind of its trigger gives (rules/placeholders-declared.ts).
 */
export const EVENT_VALUES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'manual.run': {},
  schedule: { scheduled_at: 'The tick the run is for: an instant in UTC, ISO 8601 (2026-11-30T01:30:00.000Z).' },
  'github.mention': GITHUB,
  'github.label': GITHUB,
};

/** The kinds among `kinds` that this hub knows. */
export function knownKinds(kinds: readonly string[]): string[] {
  return kinds.filter((kind) => Object.hasOwn(EVENT_VALUES, kind));
}

/** The event names that every kind of `kinds` gives (unknown kinds left out), in the first kind's order. */
export function eventNamesOf(kinds: readonly string[]): string[] {
  const known = knownKinds(kinds);
  const names = (kind: string) => Object.keys(EVENT_VALUES[kind] ?? {});
  return names(known[0] ?? 'manual.run').filter((name) => known.every((kind) => names(kind).includes(name)));
}

/** The kinds whose runs give {{ event.<name> }}. */
export function kindsGiving(name: string): string[] {
  return Object.keys(EVENT_VALUES).filter((kind) => Object.hasOwn(EVENT_VALUES[kind] ?? {}, name));
}
