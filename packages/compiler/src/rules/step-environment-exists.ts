import { closest } from '@hub/schemas';
import { hint, listSome } from '../issues/suggest.js';
import { reportAt, rejected, type RuleContext } from './context.js';

export function stepEnvironmentExists(context: RuleContext): void {
  if (rejected(context.draft.containers.environments)) return;
  const names = context.draft.environments
    .map((environment) => environment.name.value)
    .filter((name): name is string => typeof name === 'string');
  const known = new Set(names);
  for (const trigger of context.draft.triggers) {
    for (const step of trigger.steps) {
      const name = step.environment.value;
      if (typeof name !== 'string' || known.has(name)) continue;
      const message = () => {
        const suggestion = closest(name, names);
        const ending =
          hint(suggestion) || (names.length === 0 ? '; none is defined.' : `. Defined: ${listSome(names)}.`);
        return { message: `No environment is named "${name}"${ending}`, suggestion };
      };
      reportAt(context.issues, 'step.unknown_environment', message, step.environment);
    }
  }
}
