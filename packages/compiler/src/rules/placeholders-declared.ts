import { closest } from '@hub/schemas';
import { hint, listAnd, listSome } from '../issues/suggest.js';
import { entries, inputsField, isRecord, type DraftTrigger } from '../model/draft.js';
import { eventNamesOf, kindsGiving, knownKinds } from '../model/events.js';
import { locateSpan } from '../source/locate.js';
import { reportAt, type RuleContext } from './context.js';

/** A placeholder: {{ name }} where name is an identifier with dots, such as inputs.branch. */
export const PLACEHOLDER = /\{\{\s*([A-Za-z_][\w.-]*)\s*\}\}/g;

export function declaredInputNames(trigger: DraftTrigger): string[] {
  return entries(inputsField(trigger)).map(([name]) => name);
}

/** The kinds of the trigger's `on` that this hub knows. */
function kindsOf(trigger: DraftTrigger): string[] {
  return isRecord(trigger.on.value) ? knownKinds(Object.keys(trigger.on.value)) : [];
}

/**
 * Templates may use {{ prompt }}, {{ inputs.<declared name> }} and the {{ event.<name> }} that
 * every kind of the trigger gives, in text and in included partials.
 */
export function placeholdersDeclared(context: RuleContext): void {
  for (const trigger of context.draft.triggers) {
    const inputs = declaredInputNames(trigger);
    const kinds = kindsOf(trigger);
    const events = eventNamesOf(kinds);
    const allowed = ['prompt', ...inputs.map((name) => `inputs.${name}`), ...events.map((name) => `event.${name}`)];
    const unknown = (name: string) => () => {
      const event = /^event\.(.+)$/.exec(name)?.[1];
      const givers = event === undefined ? [] : kindsGiving(event);
      if (givers.length > 0) {
        const without = kinds.filter((kind) => !givers.includes(kind));
        return {
          message: `The placeholder {{ ${name} }} has no value in ${listAnd(without) || "this trigger's"} runs: only ${listAnd(givers)} runs give it.`,
          suggestion: undefined,
        };
      }
      const suggestion = closest(name, allowed);
      const list = [
        '{{ prompt }}',
        inputs.length > 0 ? `{{ inputs.<name> }} for ${listSome(inputs)}` : '',
        ...events.map((event) => `{{ event.${event} }}`),
      ].filter((item) => item !== '');
      const none = inputs.length > 0 ? '' : ' (this trigger declares no inputs)';
      return {
        message: `Unknown placeholder {{ ${name} }}${hint(suggestion) || '.'} Placeholders here: ${listAnd(list)}${none}.`,
        suggestion,
      };
    };
    for (const step of trigger.steps) {
      for (const part of step.prompt) {
        if (part.kind === 'text' && typeof part.field.value === 'string') {
          // The scalar's source is searched forward, match by match: where the text is written
          // as it reads, each placeholder is found at its own column.
          const span = locateSpan(part.field.doc, part.field.pointer);
          const range = span?.end === undefined ? undefined : [span.start, span.end];
          const written = range ? part.field.doc.source.text.slice(range[0], range[1]) : '';
          let from = 0;
          for (const match of part.field.value.matchAll(PLACEHOLDER)) {
            const name = match[1] as string;
            const found = written.indexOf(match[0], from);
            if (found >= 0) from = found + match[0].length;
            if (allowed.includes(name)) continue;
            if (found < 0 || !range)
              reportAt(context.issues, 'template.unknown_placeholder', unknown(name), part.field);
            else {
              context.issues.add('template.unknown_placeholder', unknown(name), part.field.pointer, {
                file: part.field.doc.file,
                source: part.field.doc.source,
                offset: (range[0] as number) + found,
              });
            }
          }
        } else if (part.kind === 'include' && part.partial !== undefined) {
          const partial = part.partial;
          for (const match of partial.content.matchAll(PLACEHOLDER)) {
            const name = match[1] as string;
            if (allowed.includes(name)) continue;
            context.issues.add('template.unknown_placeholder', unknown(name), `${partial.pointer}/content`, {
              file: partial.path,
              source: partial.source,
              offset: match.index,
            });
          }
        }
      }
    }
  }
}
