// {{ event.<name> }} in the editor: the values a run's kind gives its templates (the compiler's
// EVENT_VALUES), offered where every kind of the trigger gives them, as the compiler allows them.
import { EVENT_VALUES, eventNamesOf, kindsGiving } from '@hub/compiler';

/** What a value holds, and which kinds give it. */
export function eventDoc(name: string): string | undefined {
  const givers = kindsGiving(name);
  const [first] = givers;
  if (first === undefined) return undefined;
  const what = EVENT_VALUES[first]?.[name] as string;
  return `${what}\n\nGiven by ${givers.map((kind) => `\`${kind}\``).join(' and ')} runs.`;
}

/**
 * The event names a template may use: those every kind of its trigger gives (`kinds` undefined:
 * the trigger is not known, as in a partial, and none are offered).
 */
export function eventNames(kinds: readonly string[] | undefined): string[] {
  return kinds === undefined ? [] : eventNamesOf(kinds);
}

/** The hover of {{ event.<name> }}: undefined when a kind of the trigger does not give it (a diagnostic says so). */
export function eventHover(name: string, kinds: readonly string[] | undefined): string | undefined {
  const doc = eventDoc(name);
  if (doc === undefined) return undefined;
  if (kinds !== undefined && !eventNamesOf(kinds).includes(name)) return undefined;
  return `**{{ event.${name} }}**\n\n${doc}`;
}
