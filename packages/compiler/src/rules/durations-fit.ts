import type { Field } from '../model/draft.js';
import { parseDuration } from '../model/duration.js';
import { reportAt, type RuleContext } from './context.js';

/** Durations that match the pattern but do not fit in a safe integer of milliseconds. */
export function durationsFit(context: RuleContext): void {
  const durations: Field[] = [];
  for (const trigger of context.draft.triggers) {
    durations.push(trigger.maxRuntime);
    for (const step of trigger.steps) durations.push(step.maxRuntime, step.idleTimeout);
  }
  for (const at of durations) {
    if (parseDuration(at.value) === Infinity) {
      reportAt(context.issues, 'duration.too_long', `The duration "${String(at.value)}" is too long.`, at);
    }
  }
}
