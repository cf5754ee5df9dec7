import type { CompiledTrigger, DeclaredInput } from './types.js';

/**
 * The trigger's declared inputs, which every kind's input text is parsed against (a dispatch's, a
 * schedule entry's, a mention's): those of manual.run, or of github.mention for a trigger that
 * declares them there (DECISIONS.md, "Runs that no person dispatches"). None when neither does.
 */
export function declaredInputs(trigger: CompiledTrigger): DeclaredInput[] {
  for (const event of trigger.events)
    if ((event.kind === 'manual.run' || event.kind === 'github.mention') && event.inputs.length > 0)
      return event.inputs;
  return [];
}
