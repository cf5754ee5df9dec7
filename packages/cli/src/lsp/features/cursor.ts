// What the cursor is on: a key being typed (and the mapping it goes into), a value being typed
// (and the field it belongs to), or the text of a block scalar. Block structure comes from
// lines.ts; a flow collection on the cursor's line (`agent: { provider: claude, m| }`) is read
// character by character up to the cursor.
import { ancestors, lineNodes, opensBlockScalar, pathOf, siblingKeys, type LineNode } from './lines.js';
import { ITEM, type Segment } from './schema.js';

export type Cursor =
  /** A key at [from, to) of the line, into the mapping at `path`, which already has `present`. */
  | {
      mode: 'key';
      path: Segment[];
      from: number;
      to: number;
      prefix: string;
      present: Set<string>;
      colonFollows: boolean;
    }
  /** The value of the field at `path`, written at [from, to) of the line; `bare` when not even a space follows the colon. */
  | { mode: 'value'; path: Segment[]; from: number; to: number; prefix: string; bare: boolean }
  /** Inside a block scalar's text, the scalar being the value of the field at `path`. */
  | { mode: 'text'; path: Segment[] };

const PARTIAL_KEY = /^[^\s:#'"{}[\],&*!|>%@`]*$/;

export function cursorAt(lines: readonly string[], row: number, character: number): Cursor | null {
  const line = lines[row] ?? '';
  const ch = Math.min(character, line.length);
  const before = line.slice(0, ch);
  const nodes = lineNodes(before);
  const last = nodes[nodes.length - 1];
  if (last?.kind === 'key') return valueCursor(lines, row, line, ch, nodes);
  const col = nodes.length === 0 ? indentOf(before) : afterItems(before, last as LineNode);
  const rest = before.slice(col);
  const chain = ancestors(lines, row, col, nodes);
  const text = inBlockScalar(chain);
  if (text !== null) return text;
  const path = pathOf(chain);
  // In the indentation of a line that has content (a space typed to re-indent it): nothing to offer.
  if (rest === '' && /^\s+\S/.test(line.slice(ch))) return null;
  if (PARTIAL_KEY.test(rest)) {
    const whole = lineNodes(line).find((node) => node.col === col);
    const to =
      whole?.kind === 'key' ? Math.max(whole.end, ch) : col + (/^[^\s:#]*/.exec(line.slice(col))?.[0].length ?? 0);
    return {
      mode: 'key',
      path,
      from: col,
      to,
      prefix: rest,
      present: siblingKeys(lines, row, col, nodes),
      colonFollows: whole?.kind === 'key',
    };
  }
  if (last?.kind === 'item' && /^[{[]/.test(rest)) return inFlow(path, line, col, ch);
  // A scalar entry of a sequence (`- ci-b|`).
  if (last?.kind === 'item')
    return { mode: 'value', path, from: col, to: valueEnd(line, col, ch), prefix: rest, bare: false };
  return null;
}

function valueCursor(
  lines: readonly string[],
  row: number,
  line: string,
  ch: number,
  nodes: LineNode[],
): Cursor | null {
  const key = nodes[nodes.length - 1] as Extract<LineNode, { kind: 'key' }>;
  const chain = ancestors(lines, row, key.col, nodes.slice(0, -1));
  const text = inBlockScalar(chain);
  if (text !== null) return text;
  const path = [...pathOf(chain), key.key];
  const written = line.slice(key.valueCol, ch);
  if (written.startsWith('{') || written.startsWith('[')) return inFlow(path, line, key.valueCol, ch);
  if (opensBlockScalar({ ...key, value: written })) return null;
  const quoted = written.startsWith('"') || written.startsWith("'");
  // In a comment after the value.
  if (!quoted && /(?:^|\s)#/.test(written)) return null;
  const from = key.valueCol + (quoted ? 1 : 0);
  const bare = key.valueCol === ch && line[ch - 1] === ':';
  return { mode: 'value', path, from, to: valueEnd(line, from, ch), prefix: line.slice(from, ch), bare };
}

/** The cursor inside a flow collection that starts at column `start`, the value of the field at `path`. */
function inFlow(path: Segment[], line: string, start: number, ch: number): Cursor | null {
  const flow = flowCursor(line.slice(start, ch));
  if (flow === null) return null;
  const from = start + flow.from;
  if (flow.key)
    return {
      mode: 'key',
      path: [...path, ...flow.path],
      from,
      to: ch,
      prefix: flow.prefix,
      present: flow.present,
      colonFollows: false,
    };
  return {
    mode: 'value',
    path: [...path, ...flow.path],
    from,
    to: ch,
    prefix: flow.prefix,
    bare: line[from - 1] === ':',
  };
}

/** The end of a plain or quoted value that starts at `from`: before a comment, trailing blanks, a closing quote. */
function valueEnd(line: string, from: number, ch: number): number {
  const tail = line
    .slice(from)
    .replace(/\s+#.*$/, '')
    .replace(/\s+$/, '')
    .replace(/["']$/, '');
  return Math.max(ch, from + tail.length);
}

function indentOf(text: string): number {
  return /^ */.exec(text)?.[0].length ?? 0;
}

/** The column after the last `- ` of `before`. */
function afterItems(before: string, lastItem: LineNode): number {
  let at = lastItem.col + 1;
  while (before[at] === ' ' || before[at] === '\t') at += 1;
  return at;
}

/** Inside a block scalar when one of the enclosing keys opens one; its text is that key's value. */
function inBlockScalar(chain: readonly LineNode[]): Cursor | null {
  const index = chain.findIndex(opensBlockScalar);
  return index < 0 ? null : { mode: 'text', path: pathOf(chain.slice(0, index + 1)) };
}

interface FlowLevel {
  map: boolean;
  key: string | undefined;
  keys: Set<string>;
}

/** The cursor at the end of `text`, a flow collection's start: its path below the block key, and whether a key or a value is being typed. */
export function flowCursor(
  text: string,
): { path: Segment[]; key: boolean; prefix: string; from: number; present: Set<string> } | null {
  const stack: FlowLevel[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    const top = stack[stack.length - 1];
    if (c === '"' || c === "'") {
      const close = closingQuote(text, i);
      if (close < 0) {
        start = i + 1;
        break;
      }
      i = close;
    } else if (c === '{' || c === '[') {
      stack.push({ map: c === '{', key: undefined, keys: new Set() });
      start = i + 1;
    } else if (c === '}' || c === ']') {
      stack.pop();
      start = i + 1;
    } else if (c === ',' && top !== undefined) {
      top.key = undefined;
      start = i + 1;
    } else if (
      c === ':' &&
      top?.map === true &&
      top.key === undefined &&
      /^(?:$|[\s,{}[\]])/.test(text.slice(i + 1, i + 2))
    ) {
      const key = unquote(text.slice(start, i).trim());
      top.key = key;
      top.keys.add(key);
      start = i + 1;
    }
  }
  const top = stack[stack.length - 1];
  if (top === undefined) return null;
  const path: Segment[] = [];
  for (const level of stack.slice(0, -1)) {
    if (!level.map) path.push(ITEM);
    else if (level.key === undefined) return null;
    else path.push(level.key);
  }
  while (text[start] === ' ' || text[start] === '\t') start += 1;
  const prefix = text.slice(start);
  if (top.map && top.key === undefined) return { path, key: true, prefix, from: start, present: top.keys };
  path.push(top.map ? (top.key as string) : ITEM);
  return {
    path,
    key: false,
    prefix: prefix.replace(/^["']/, ''),
    from: start + (/^["']/.test(prefix) ? 1 : 0),
    present: new Set(),
  };
}

function closingQuote(text: string, open: number): number {
  const quote = text[open];
  for (let i = open + 1; i < text.length; i++) {
    if (quote === '"' && text[i] === '\\') i += 1;
    else if (text[i] === quote) {
      if (quote === "'" && text[i + 1] === "'") i += 1;
      else return i;
    }
  }
  return -1;
}

function unquote(key: string): string {
  if (/^".*"$/.test(key)) return key.slice(1, -1).replace(/\\(.)/g, '$1');
  if (/^'.*'$/.test(key)) return key.slice(1, -1).replace(/''/g, "'");
  return key;
}
