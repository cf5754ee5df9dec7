import { parseDuration } from '../model/duration.js';
import { reportAt, type RuleContext } from './context.js';

/** idle_timeout is compared with the step's max_runtime, which defaults to the trigger's. */
export function idleTimeoutWithinMaxRuntime(context: RuleContext): void {
  for (const trigger of context.draft.triggers) {
    for (const step of trigger.steps) {
      const idle = parseDuration(step.idleTimeout.value);
      const maxField = step.maxRuntime.value === undefined ? trigger.maxRuntime : step.maxRuntime;
      const max = parseDuration(maxField.value);
      if (idle === undefined || max === undefined || idle === Infinity || max === Infinity || idle <= max) continue;
      reportAt(
        context.issues,
        'step.idle_timeout_exceeds_max_runtime',
        `The idle_timeout ${String(step.idleTimeout.value)} is longer than the step's max_runtime ${String(maxField.value)}.`,
        step.idleTimeout,
      );
    }
  }
}
