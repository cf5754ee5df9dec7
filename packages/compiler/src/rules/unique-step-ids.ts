import { reportDuplicates, where, type RuleContext } from './context.js';

export function uniqueStepIds(context: RuleContext): void {
  for (const trigger of context.draft.triggers) {
    reportDuplicates(
      context,
      trigger.steps.map((step) => step.id),
      'step.duplicate_id',
      (id, first) => `The step id "${id}" is already used in this trigger at ${where(first)}.`,
    );
  }
}
