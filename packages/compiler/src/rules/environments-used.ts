import { reportAt, type RuleContext } from './context.js';

/** A warning, not an issue: an environment no step runs in is probably a leftover. */
export function environmentsUsed(context: RuleContext): void {
  const used = new Set<unknown>();
  for (const trigger of context.draft.triggers) for (const step of trigger.steps) used.add(step.environment.value);
  for (const environment of context.draft.environments) {
    if (typeof environment.name.value !== 'string' || used.has(environment.name.value)) continue;
    reportAt(
      context.warnings,
      'environment.unused',
      `No step runs in the environment "${environment.name.value}".`,
      environment.name,
      // A legacy environment's name is its key; an A environment's is its name value.
      { key: environment.name.pointer === environment.node.pointer },
    );
  }
}
