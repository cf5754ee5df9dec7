// Hover: a key's schema description and type; for an `include:` value, the partial's first lines.
import type { Hover, Position, Range } from 'vscode-languageserver';
import { fieldDoc } from './complete.js';
import { ancestors, lineNodes, opensBlockScalar, pathOf, splitLines, type LineNode } from './lines.js';
import { flowCursor } from './cursor.js';
import { schemaFor, type Segment, type SchemaIndex } from './schema.js';
import type { FeatureContext } from './types.js';

/** How much of a partial a hover shows. */
export const PREVIEW_LINES = 10;

export function hoverAt(context: FeatureContext, position: Position): Hover | null {
  const schema = schemaFor(context.kind);
  if (schema === undefined) return null;
  const lines = splitLines(context.text);
  const line = lines[position.line] ?? '';
  const ch = position.character;
  const nodes = lineNodes(line);
  const index = nodes.findIndex((node) => node.kind === 'key' && ch >= node.col);
  const key = nodes[index] as Extract<LineNode, { kind: 'key' }> | undefined;
  if (key === undefined) return null;
  const chain = ancestors(lines, position.line, key.col, nodes.slice(0, index));
  if (chain.some(opensBlockScalar)) return null;
  const range = (from: number, to: number) => ({ start: { line: position.line, character: from }, end: { line: position.line, character: to } });
  if (ch > key.end) {
    if (ch >= key.valueCol && /^[{[]/.test(key.value)) return flowKeyHover(schema, [...pathOf(chain), key.key], line, key.valueCol, ch, range);
    // On the value: only an include's says more than the key's hover would.
    if (key.key !== 'include' || ch < key.valueCol) return null;
    const written = key.value.replace(/\s+#.*$/, '').trim();
    const path = written.replace(/^"(.*)"$|^'(.*)'$/, '$1$2');
    if (path === '') return null;
    return { contents: { kind: 'markdown', value: preview(path, context.readPartial(path)) }, range: range(key.valueCol, key.valueCol + written.length) };
  }
  const field = schema.at([...pathOf(chain), key.key]);
  const doc = fieldDoc(field);
  if (doc === undefined) return null;
  return { contents: { kind: 'markdown', value: `**${key.key}**\n\n${doc.value}` }, range: range(key.col, key.end) };
}

/** A key inside a flow mapping (`agent: { provider: claude }`): the word under the cursor, followed by a colon. */
function flowKeyHover(schema: SchemaIndex, path: Segment[], line: string, valueCol: number, ch: number, range: (from: number, to: number) => Range): Hover | null {
  let from = ch;
  while (from > valueCol && /[\w.-]/.test(line[from - 1] as string)) from -= 1;
  const word = /^[\w.-]+/.exec(line.slice(from))?.[0];
  if (word === undefined || !/^\s*:(?:\s|$|[,}\]])/.test(line.slice(from + word.length))) return null;
  const flow = flowCursor(line.slice(valueCol, from));
  if (flow === null || !flow.key) return null;
  const doc = fieldDoc(schema.at([...path, ...flow.path, word]));
  return doc === undefined ? null : { contents: { kind: 'markdown', value: `**${word}**\n\n${doc.value}` }, range: range(from, from + word.length) };
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
