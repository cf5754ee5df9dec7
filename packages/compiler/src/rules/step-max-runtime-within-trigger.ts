import { parseDuration } from '../model/duration.js';
import { reportAt, type RuleContext } from './context.js';

export function stepMaxRuntimeWithinTrigger(context: RuleContext): void {
  for (const trigger of context.draft.triggers) {
    const limit = parseDuration(trigger.maxRuntime.value);
    if (limit === undefined || limit === Infinity) continue;
    for (const step of trigger.steps) {
      const own = parseDuration(step.maxRuntime.value);
      if (own === undefined || own === Infinity || own <= limit) continue;
      reportAt(
        context.issues,
        'step.max_runtime_exceeds_trigger',
        `The step's max_runtime ${String(step.maxRuntime.value)} is longer than its trigger's ${String(trigger.maxRuntime.value)}.`,
        step.maxRuntime,
      );
    }
  }
}
