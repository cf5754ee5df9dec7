// Hover: a key's schema description and type; on a value, what it names (an include's partial,
// its first lines; a step's environment; a legacy step's agent; a schedule's cron, its meaning and
// next fire times); on {{ … }}, the placeholder (the prompt, a declared input, an event value).
import type { Hover, Position, Range } from 'vscode-languageserver';
import { flowCursor } from './cursor.js';
import { Declarations, type Named } from './data.js';
import { fieldDoc, PROMPT_DOC } from './docs.js';
import { eventHover } from './events.js';
import { ancestors, lineNodes, opensBlockScalar, pathOf, splitLines, type LineNode } from './lines.js';
import { cronHover } from './schedule.js';
import { ITEM, schemaFor, type Segment, type SchemaIndex } from './schema.js';
import type { FeatureContext } from './types.js';

/** A complete placeholder, as the compiler reads it (rules/placeholders-declared.ts). */
const PLACEHOLDER = /\{\{\s*([A-Za-z_][\w.-]*)\s*\}\}/g;

/** How much of a partial a hover shows. */
const PREVIEW_LINES = 10;

export function hoverAt(context: FeatureContext, position: Position): Hover | null {
  const lines = splitLines(context.text);
  const line = lines[position.line] ?? '';
  const ch = position.character;
  const range = (from: number, to: number) => ({
    start: { line: position.line, character: from },
    end: { line: position.line, character: to },
  });
  const declarations = () => new Declarations(lines, position.line, context.kind, context.hubYaml);
  for (const match of line.matchAll(PLACEHOLDER)) {
    if (ch < match.index || ch > match.index + match[0].length) continue;
    const chain = ancestors(lines, position.line, ch, lineNodes(line.slice(0, ch)));
    const name = match[1] as string;
    const value = name.startsWith('event.')
      ? eventHover(name.slice('event.'.length), context.kind === 'partial' ? undefined : declarations().kinds(chain))
      : placeholderDoc(name, () => (context.kind === 'partial' ? [] : declarations().inputs(chain)));
    return value === undefined
      ? null
      : { contents: { kind: 'markdown', value }, range: range(match.index, match.index + match[0].length) };
  }
  const schema = schemaFor(context.kind);
  if (schema === undefined) return null;
  const schedule = cronHover(context, lines, position);
  if (schedule !== null) return schedule;
  const nodes = lineNodes(line);
  const index = nodes.findIndex((node) => node.kind === 'key' && ch >= node.col);
  const key = nodes[index] as Extract<LineNode, { kind: 'key' }> | undefined;
  if (key === undefined) {
    // A flow mapping as a sequence entry (`- { name: a, kind: daemon }`).
    const item = nodes[nodes.length - 1];
    const start = item === undefined ? -1 : item.col + 1 + (/^\s*/.exec(line.slice(item.col + 1))?.[0].length ?? 0);
    if (start < 0 || !/^[{[]/.test(line.slice(start)) || ch < start) return null;
    const chain = ancestors(lines, position.line, start, nodes);
    return chain.some(opensBlockScalar) ? null : flowKeyHover(schema, pathOf(chain), line, start, ch, range);
  }
  const chain = ancestors(lines, position.line, key.col, nodes.slice(0, index));
  if (chain.some(opensBlockScalar)) return null;
  const path = [...pathOf(chain), key.key];
  if (ch > key.end) {
    if (ch < key.valueCol) return null;
    if (/^[{[]/.test(key.value)) return flowKeyHover(schema, path, line, key.valueCol, ch, range);
    const written = key.value.replace(/\s+#.*$/, '').trim();
    const value = written.replace(/^"(.*)"$|^'(.*)'$/, '$1$2');
    if (value === '') return null;
    const shown = valueDoc(context, path, value, declarations);
    return shown === undefined
      ? null
      : { contents: { kind: 'markdown', value: shown }, range: range(key.valueCol, key.valueCol + written.length) };
  }
  const doc = fieldDoc(schema.at(path));
  if (doc === undefined) return null;
  return { contents: { kind: 'markdown', value: `**${key.key}**\n\n${doc.value}` }, range: range(key.col, key.end) };
}

/** On a value, what the value names: an include's partial, a step's environment, a legacy step's agent. */
function valueDoc(
  context: FeatureContext,
  path: Segment[],
  value: string,
  declarations: () => Declarations,
): string | undefined {
  const name = path[path.length - 1];
  const inStep = path.length >= 3 && path[path.length - 2] === ITEM && path[path.length - 3] === 'steps';
  if (name === 'include') return preview(value, context.readPartial(value));
  const named = (entries: Named[], what: string) => {
    const found = entries.find((entry) => entry.name === value);
    return found === undefined
      ? undefined
      : `**${value}**: ${what}${found.detail === undefined ? '' : ` (${found.detail})`}`;
  };
  if (name === 'environment' && inStep) return named(declarations().environments(), 'environment');
  if (name === 'agent' && inStep && context.kind === 'legacy-workflow')
    return named(declarations().agents(), 'agent of the hub file');
  return undefined;
}

/** A placeholder's meaning: the dispatch's prompt, or a declared input (undefined for an unknown name: a diagnostic says that). */
function placeholderDoc(name: string, inputs: () => Named[]): string | undefined {
  if (name === 'prompt') return `**{{ prompt }}**\n\n${PROMPT_DOC}`;
  if (!name.startsWith('inputs.')) return undefined;
  const input = inputs().find((entry) => entry.name === name.slice('inputs.'.length));
  if (input === undefined) return undefined;
  return [`**{{ ${name} }}**: declared input`, input.documentation, input.detail]
    .filter((part) => part !== undefined)
    .join('\n\n');
}

/** A key inside a flow mapping (`agent: { provider: claude }`): the word under the cursor, followed by a colon. */
function flowKeyHover(
  schema: SchemaIndex,
  path: Segment[],
  line: string,
  valueCol: number,
  ch: number,
  range: (from: number, to: number) => Range,
): Hover | null {
  let from = ch;
  while (from > valueCol && /[\w.-]/.test(line[from - 1] as string)) from -= 1;
  const word = /^[\w.-]+/.exec(line.slice(from))?.[0];
  if (word === undefined || !/^\s*:(?:\s|$|[,}\]])/.test(line.slice(from + word.length))) return null;
  const flow = flowCursor(line.slice(valueCol, from));
  if (flow === null || !flow.key) return null;
  const doc = fieldDoc(schema.at([...path, ...flow.path, word]));
  return doc === undefined
    ? null
    : { contents: { kind: 'markdown', value: `**${word}**\n\n${doc.value}` }, range: range(from, from + word.length) };
}

function preview(path: string, content: string | undefined): string {
  if (content === undefined) return `No partial \`${path}\` in the partials directory.`;
  const all = splitLines(content.replace(/(?:\r\n|\r|\n)$/, ''));
  const shown = all.slice(0, PREVIEW_LINES).join('\n');
  const fence = '`'.repeat(Math.max(3, ...[...shown.matchAll(/`+/g)].map((run) => run[0].length + 1)));
  const language = /\.md$/i.test(path) ? 'markdown' : '';
  const more = all.length > PREVIEW_LINES ? `\n\n(${all.length - PREVIEW_LINES} more lines)` : '';
  return `**${path}**\n\n${fence}${language}\n${shown}\n${fence}${more}`;
}
