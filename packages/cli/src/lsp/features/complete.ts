// Completion: keys from the JSON Schemas, with their descriptions; environment names, a legacy
// hub file's agents, partial paths, a schedule's zone names, enum values and duration units as
// values; inside {{ }}, the prompt, declared inputs and the event values the trigger's kinds give.
// Every item replaces an exact range of the cursor's line (keys such as manual.run hold a dot,
// which editors do not count as part of a word).
import type { CompletionItem, CompletionItemKind, Position } from 'vscode-languageserver';
import { cursorAt, type Cursor } from './cursor.js';
import { Declarations, type Named } from './data.js';
import { fieldDoc, markdown, PROMPT_DOC } from './docs.js';
import { eventDoc, eventNames } from './events.js';
import { ancestors, lineNodes, splitLines } from './lines.js';
import { isDuration, ITEM, schemaFor, typeLine, values, type SchemaIndex } from './schema.js';
import { zoneNames } from './schedule.js';
import type { FeatureContext } from './types.js';

// CompletionItemKind's values (LSP 3.17), written out so that only types come from vscode-languageserver.
const PROPERTY: CompletionItemKind = 10;
const UNIT: CompletionItemKind = 11;
const VALUE: CompletionItemKind = 12;
const ENUM_MEMBER: CompletionItemKind = 20;
const FILE: CompletionItemKind = 17;
const VARIABLE: CompletionItemKind = 6;
const REFERENCE: CompletionItemKind = 18;

/** A placeholder being typed: `{{ `, `{{ pro`, `{{ inputs.br`, `{{ event.ur`. */
const PLACEHOLDER = /\{\{\s*((?:inputs\.|event\.)?)([\w-]*)$/;
const UNITS: [string, string][] = [
  ['d', 'days'],
  ['h', 'hours'],
  ['m', 'minutes'],
  ['s', 'seconds'],
];

export function completeAt(context: FeatureContext, position: Position): CompletionItem[] {
  const lines = splitLines(context.text);
  const line = lines[position.line] ?? '';
  const ch = Math.min(position.character, line.length);
  const declarations = () => new Declarations(lines, position.line, context.kind, context.hubYaml);
  const placeholder = PLACEHOLDER.exec(line.slice(0, ch));
  if (placeholder !== null) {
    const chain = ancestors(lines, position.line, ch, lineNodes(line.slice(0, ch)));
    const partial = context.kind === 'partial';
    return placeholders(placeholder, line, position.line, ch, {
      inputs: partial ? [] : declarations().inputs(chain),
      events: eventNames(partial ? undefined : declarations().kinds(chain)),
    });
  }
  const schema = schemaFor(context.kind);
  if (schema === undefined) return [];
  const cursor = cursorAt(lines, position.line, ch);
  if (cursor?.mode === 'key') return keys(schema, cursor, position.line);
  if (cursor?.mode === 'value') return valueItems(context, schema, cursor, position.line, declarations);
  return [];
}

function edit(row: number, from: number, to: number, newText: string) {
  return { range: { start: { line: row, character: from }, end: { line: row, character: to } }, newText };
}

/** The keys the mapping may still take, required ones first. */
function keys(schema: SchemaIndex, cursor: Extract<Cursor, { mode: 'key' }>, row: number): CompletionItem[] {
  const mapping = schema.at(cursor.path).resolved;
  // A prompt item takes one key (text or include): none more once it has it.
  if (mapping.some((node) => typeof node.maxProperties === 'number' && cursor.present.size >= node.maxProperties))
    return [];
  const required = new Set(mapping.flatMap((node) => (Array.isArray(node.required) ? node.required.map(String) : [])));
  const items: CompletionItem[] = [];
  for (const [name, field] of schema.properties(cursor.path)) {
    if (cursor.present.has(name)) continue;
    const label = /^[\w.-]+$/.test(name) ? name : JSON.stringify(name);
    items.push({
      label,
      kind: PROPERTY,
      detail: typeLine(field)?.replace(/`/g, ''),
      documentation: fieldDoc(field),
      sortText: `${required.has(name) ? 0 : 1}${name}`,
      textEdit: edit(row, cursor.from, cursor.to, cursor.colonFollows ? label : `${label}: `),
    });
  }
  return items;
}

function valueItems(
  context: FeatureContext,
  schema: SchemaIndex,
  cursor: Extract<Cursor, { mode: 'value' }>,
  row: number,
  declarations: () => Declarations,
): CompletionItem[] {
  const field = schema.at(cursor.path);
  const name = cursor.path[cursor.path.length - 1];
  const inStep =
    cursor.path.length >= 3 &&
    cursor.path[cursor.path.length - 2] === ITEM &&
    cursor.path[cursor.path.length - 3] === 'steps';
  const item = (label: string, kind: CompletionItemKind, more: Partial<CompletionItem> = {}): CompletionItem => ({
    label,
    kind,
    ...more,
    textEdit: edit(row, cursor.from, cursor.to, `${cursor.bare ? ' ' : ''}${label}`),
  });
  const named = (entries: Named[], kind: CompletionItemKind) =>
    entries.map((entry) =>
      item(entry.name, kind, {
        detail: entry.detail,
        documentation: entry.documentation === undefined ? undefined : markdown(entry.documentation),
      }),
    );
  if (name === 'environment' && inStep) return named(declarations().environments(), REFERENCE);
  if (name === 'agent' && inStep && context.kind === 'legacy-workflow')
    return named(declarations().agents(), REFERENCE);
  if (name === 'include') return context.partials.map((path) => item(path, FILE));
  if (name === 'timezone' && cursor.path.includes('schedule'))
    return zoneNames(cursor.prefix).map((zone, index) =>
      item(zone, VALUE, { sortText: String(index).padStart(4, '0') }),
    );
  if (isDuration(field)) return durations(cursor.prefix).map(([text, unit]) => item(text, UNIT, { detail: unit }));
  return values(field).map((value) => item(value, ENUM_MEMBER, { documentation: fieldDoc(field) }));
}

/** After a number in a duration, the units that may follow it (d, h, m, s, in that order). */
function durations(prefix: string): [string, string][] {
  if (!/^(?:\d+[dhms])*\d+$/.test(prefix)) return [];
  const used = /([dhms])\d+$/.exec(prefix)?.[1];
  const after = used === undefined ? 0 : UNITS.findIndex(([unit]) => unit === used) + 1;
  return UNITS.slice(after).map(([unit, name]) => [`${prefix}${unit}`, name]);
}

function placeholders(
  match: RegExpExecArray,
  line: string,
  row: number,
  ch: number,
  declared: { inputs: Named[]; events: string[] },
): CompletionItem[] {
  // After `inputs.` or `event.`, the names alone; after `{{ `, every placeholder with its prefix.
  const prefix = match[1] as string;
  const from = ch - (match[2] as string).length;
  const rest = line.slice(ch);
  const word = /^[\w-]*/.exec(rest)?.[0] ?? '';
  const closed = /^[\w-]*\s*\}\}/.test(rest);
  const to = ch + word.length;
  const item = (label: string, kind: CompletionItemKind, more: Partial<CompletionItem>): CompletionItem => ({
    label,
    kind,
    ...more,
    textEdit: edit(row, from, to, closed ? label : `${label} }}`),
  });
  const inputs = declared.inputs.map((input) =>
    item(`${prefix === '' ? 'inputs.' : ''}${input.name}`, VARIABLE, {
      detail: input.detail,
      documentation: input.documentation === undefined ? undefined : markdown(input.documentation),
    }),
  );
  const events = declared.events.map((name) =>
    item(`${prefix === '' ? 'event.' : ''}${name}`, VALUE, { documentation: markdown(eventDoc(name) ?? '') }),
  );
  if (prefix === 'inputs.') return inputs;
  if (prefix === 'event.') return events;
  return [item('prompt', VALUE, { documentation: markdown(PROMPT_DOC) }), ...inputs, ...events];
}
