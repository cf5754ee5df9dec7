import { entries, field, inputsField, isRecord } from '../model/draft.js';
import { listSome } from '../issues/suggest.js';
import { reportAt, type RuleContext } from './context.js';

export function inputDefaultsInEnum(context: RuleContext): void {
  for (const trigger of context.draft.triggers) {
    for (const [name, input] of entries(inputsField(trigger))) {
      if (!isRecord(input.value) || !Array.isArray(input.value.enum) || input.value.default === undefined) continue;
      const allowed = input.value.enum.map(String);
      const value = String(input.value.default);
      if (allowed.includes(value)) continue;
      reportAt(
        context.issues,
        'input.default_not_in_enum',
        `The default "${value}" of input "${name}" is not one of its enum values: ${listSome(allowed)}.`,
        field(input, 'default'),
      );
    }
  }
}
