import { parseManualInput } from '../dispatch/input.js';
import { listSome } from '../issues/suggest.js';
import { readInputs } from '../model/build.js';
import { field, inputsField, scheduleEntries } from '../model/draft.js';
import { reportAt, type RuleContext } from './context.js';

/**
 * A schedule entry's input is read as each tick will read it, against the trigger's declared
 * inputs (under manual.run or github.mention; a schedule-only trigger declares none): a missing
 * required input or a value outside an enum is found now, not at 02:30 (DECISIONS.md, "Schedules").
 */
export function scheduleInput(context: RuleContext): void {
  for (const trigger of context.draft.triggers) {
    const declared = readInputs(inputsField(trigger));
    if (declared.length === 0) continue;
    // Read without defaults or checks, which are made here: a default outside its enum is
    // input.default_not_in_enum's, not each schedule's.
    const loose = declared.map(({ name }) => ({ name, required: false }));
    for (const entry of scheduleEntries(trigger)) {
      const input = field(entry, 'input');
      if (input.value !== undefined && typeof input.value !== 'string') continue;
      const parsed = parseManualInput(input.value, loose);
      const given = parsed.ok ? parsed.inputs : {};
      // One issue an entry, with every problem: issues at one place under one code are one.
      const problems: string[] = [];
      for (const { name, required, default: fallback, enum: allowed } of declared) {
        const value = Object.hasOwn(given, name) ? given[name] : undefined;
        if (value === undefined && fallback === undefined && required) {
          problems.push(`does not set the required input "${name}" (start it with ${name}=<value>)`);
        } else if (value !== undefined && allowed !== undefined && !allowed.includes(value)) {
          problems.push(`sets "${name}" to "${value}", which is not one of: ${listSome(allowed)}`);
        }
      }
      if (problems.length > 0) {
        reportAt(context.issues, 'schedule.input', `This schedule's input ${problems.join('; and it ')}.`, input);
      }
    }
  }
}
