import { reportDuplicates, where, type RuleContext } from './context.js';

export function uniqueTriggerNames(context: RuleContext): void {
  reportDuplicates(
    context,
    context.draft.triggers.map((trigger) => trigger.name),
    'trigger.duplicate_name',
    (name, first) => `The trigger name "${name}" is already used at ${where(first)}.`,
  );
}
