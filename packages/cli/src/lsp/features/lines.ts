// Where the cursor is in a YAML document, read from the lines' indentation rather than from a
// parse: completion is asked mostly on broken YAML (a key half typed, `environment: ` with no
// value, a trailing `- `), where a parser's tree is missing the very node being typed. In block
// YAML the parent of a node is the nearest node above it that starts further left, so walking
// up from the cursor line gives the path. Columns are UTF-16 code units, as in LSP positions.
import { ITEM, type Segment } from './schema.js';

/** A node that starts on a line: a sequence entry's `- `, or a mapping key. */
export type LineNode =
  | { kind: 'item'; col: number }
  | { kind: 'key'; col: number; key: string; end: number; valueCol: number; value: string };

/** A node and the line it starts on. */
export type Located = LineNode & { row: number };

/** A plain, single- or double-quoted key, then a colon followed by a space or the end of the line. */
const KEY = /^(?:"((?:[^"\\]|\\.)*)"|'((?:[^']|'')*)'|([^\s#'"{}[\],&*!|>%@`][^#]*?))[ \t]*:(?=[ \t]|$)/;
const BLOCK_SCALAR = /^[|>][0-9+-]*[ \t]*(?:#.*)?$/;

export function splitLines(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

/** The nodes that start on `line`, left to right; none for a blank, comment or document-marker line. */
export function lineNodes(line: string): LineNode[] {
  const nodes: LineNode[] = [];
  let at = indentOf(line);
  while (line[at] === '-' && (at + 1 === line.length || line[at + 1] === ' ' || line[at + 1] === '\t')) {
    nodes.push({ kind: 'item', col: at });
    at += 1;
    while (line[at] === ' ' || line[at] === '\t') at += 1;
  }
  const rest = line.slice(at);
  if (rest === '' || rest.startsWith('#') || (nodes.length === 0 && at === 0 && /^(?:---|\.\.\.)(?:\s|$)/.test(rest)))
    return nodes;
  const match = KEY.exec(rest);
  if (match !== null) {
    const key =
      match[1] !== undefined
        ? match[1].replace(/\\(.)/g, '$1')
        : match[2] !== undefined
          ? match[2].replace(/''/g, "'")
          : (match[3] as string);
    let valueCol = at + match[0].length;
    while (line[valueCol] === ' ' || line[valueCol] === '\t') valueCol += 1;
    const keyLength = match[3] !== undefined ? match[3].length : (match[1] ?? match[2] ?? '').length + 2;
    nodes.push({ kind: 'key', col: at, key, end: at + keyLength, valueCol, value: line.slice(valueCol) });
  }
  return nodes;
}

function indentOf(line: string): number {
  let at = 0;
  while (line[at] === ' ') at += 1;
  return at;
}

/**
 * The nodes enclosing a node that starts at column `col` of line `row`, outermost first; `before`
 * are the nodes of line `row` left of it. An entry's `- ` may sit at its key's own column
 * (`steps:` then `- id: x` at the same indentation).
 */
export function ancestors(lines: readonly string[], row: number, col: number, before: readonly LineNode[]): Located[] {
  const chain: Located[] = [];
  let bound = col;
  let afterItem = false;
  let at = row;
  const consider = (node: LineNode) => {
    if (node.col < bound || (afterItem && node.kind === 'key' && node.col === bound)) {
      chain.push({ ...node, row: at });
      bound = node.col;
      afterItem = node.kind === 'item';
    }
  };
  for (let i = before.length - 1; i >= 0; i--) consider(before[i] as LineNode);
  for (let r = row - 1; r >= 0 && (bound > 0 || afterItem); r--) {
    at = r;
    const nodes = lineNodes(lines[r] as string);
    for (let i = nodes.length - 1; i >= 0; i--) consider(nodes[i] as LineNode);
  }
  return chain.reverse();
}

export function pathOf(chain: readonly LineNode[]): Segment[] {
  return chain.map((node) => (node.kind === 'item' ? ITEM : node.key));
}

/** Whether a key's value on its own line opens a block scalar (`|`, `>-`): the lines below are its text. */
export function opensBlockScalar(node: LineNode): boolean {
  return node.kind === 'key' && BLOCK_SCALAR.test(node.value);
}

/** The keys of the block mapping whose keys start at column `col` around line `row` (that line excluded). */
export function siblingKeys(
  lines: readonly string[],
  row: number,
  col: number,
  before: readonly LineNode[],
): Set<string> {
  const keys = new Set<string>();
  if (before.some((node) => node.kind === 'item' && node.col < col)) {
    // The mapping starts on this line (`- |`): nothing above belongs to it.
  } else {
    for (let r = row - 1; r >= 0; r--) {
      const nodes = lineNodes(lines[r] as string);
      const first = nodes[0];
      if (first === undefined) continue;
      const own = nodes.find((node) => node.col === col);
      if (own?.kind === 'key') keys.add(own.key);
      if (first.col < col) break;
    }
  }
  for (let r = row + 1; r < lines.length; r++) {
    const first = lineNodes(lines[r] as string)[0];
    if (first === undefined) continue;
    if (first.col < col) break;
    if (first.col === col && first.kind === 'key') keys.add(first.key);
  }
  return keys;
}

/**
 * The lines of the node that starts at column `col` of line `row`: that line and the ones below
 * it that are indented further (or, under a key, a sequence at the key's own column). Line
 * `skip` (the cursor's, half typed) is left out as a blank line.
 */
export function blockAt(lines: readonly string[], row: number, col: number, skip = -1): string {
  const head = lineNodes(lines[row] as string).find((node) => node.col === col);
  const out = [row === skip ? '' : (lines[row] as string)];
  for (let r = row + 1; r < lines.length; r++) {
    const first = lineNodes(lines[r] as string)[0];
    if (
      first !== undefined &&
      first.col <= col &&
      !(head?.kind === 'key' && first.kind === 'item' && first.col === col)
    )
      break;
    out.push(r === skip ? '' : (lines[r] as string));
  }
  return out.join('\n');
}

/** The line of the document's top-level key `key`, or -1. */
export function topLevelKey(lines: readonly string[], key: string): number {
  return lines.findIndex(
    (line) =>
      line.startsWith(key) && lineNodes(line).some((node) => node.kind === 'key' && node.col === 0 && node.key === key),
  );
}
