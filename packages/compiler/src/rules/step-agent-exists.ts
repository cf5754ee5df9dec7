import { closest } from '@hub/schemas';
import { hint, listSome } from '../issues/suggest.js';
import { reportAt, rejected, type RuleContext } from './context.js';

/** A legacy step may name an entry of the hub file's agents instead of writing the agent out. */
export function stepAgentExists(context: RuleContext): void {
  if (rejected(context.draft.containers.agents)) return;
  const names = [...context.draft.agents.keys()];
  for (const trigger of context.draft.triggers) {
    for (const step of trigger.steps) {
      const name = step.agent.value;
      if (typeof name !== 'string' || context.draft.agents.has(name)) continue;
      const message = () => {
        const suggestion = closest(name, names);
        const ending =
          hint(suggestion) ||
          (names.length === 0 ? '; the hub file defines no agents.' : `. Defined: ${listSome(names)}.`);
        return { message: `No agent is named "${name}"${ending}`, suggestion };
      };
      reportAt(context.issues, 'step.unknown_agent', message, step.agent);
    }
  }
}
