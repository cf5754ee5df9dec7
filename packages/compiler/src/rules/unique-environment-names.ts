import { reportDuplicates, where, type RuleContext } from './context.js';

export function uniqueEnvironmentNames(context: RuleContext): void {
  reportDuplicates(
    context,
    context.draft.environments.map((environment) => environment.name),
    'environment.duplicate_name',
    (name, first) => `The environment name "${name}" is already used at ${where(first)}.`,
  );
}
