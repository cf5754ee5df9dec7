import { field, isRecord } from '../model/draft.js';
import { locate } from '../source/locate.js';
import { reportAt, type RuleContext } from './context.js';

/** The kinds that may declare the trigger's inputs. */
const DECLARING = ['manual.run', 'github.mention'];

/**
 * Declared inputs belong to the trigger, not to one kind: they are declared once, under
 * manual.run.inputs or github.mention.inputs, and every kind's input text is parsed against them
 * (DECISIONS.md, "Runs that no person dispatches"). Both is reported at the second `inputs` key.
 */
export function inputsDeclaredOnce(context: RuleContext): void {
  for (const trigger of context.draft.triggers) {
    const [first, second] = DECLARING.map((kind) => ({ kind, inputs: field(trigger.on, kind, 'inputs') }))
      .filter(({ inputs }) => isRecord(inputs.value))
      .map((entry) => ({ ...entry, offset: locate(entry.inputs.doc, entry.inputs.pointer, { key: true }).offset ?? 0 }))
      .sort((a, b) => a.offset - b.offset);
    if (first === undefined || second === undefined) continue;
    const { line, column } = first.inputs.doc.source.position(first.offset);
    reportAt(
      context.issues,
      'trigger.inputs_declared_twice',
      `The trigger's inputs are declared a second time: they are already declared under ${first.kind} ` +
        `(line ${line}, column ${column}). Inputs belong to the trigger, and every kind's input text is parsed ` +
        'against them: declare them once, under manual.run (or under github.mention for a trigger without manual.run).',
      second.inputs,
      { key: true },
    );
  }
}
