// The token-level steps of yaml's composer that the CST reading (cst.ts) repeats: the properties
// before a node, what may follow one on its line, and scalars. Anything they do not cover gives up.
import { CST } from 'yaml';
import { corePlain, giveUp, type ScalarNode } from './walk.js';

type Token = CST.Token;
type SourceToken = CST.SourceToken;

export interface Props {
  found: SourceToken | null;
  comma: SourceToken | null;
  hasNewline: boolean;
  hasComment: boolean;
  end: number;
}

/** A scalar as the composer makes it, with its range[2]. */
export interface Scalar extends ScalarNode {
  end: number;
}

export function isBlock(token: Token | undefined): boolean {
  return token !== undefined && (token.type === 'block-map' || token.type === 'block-seq');
}

/** yaml's resolveProps for tokens without anchors or tags; any error gives up. */
export function resolveProps(
  tokens: SourceToken[],
  flow: string | undefined,
  indicator: string,
  next: Token | undefined,
  offset: number,
  parentIndent: number,
  startOnNewline: boolean,
): Props {
  let atNewline = startOnNewline;
  let hasSpace = startOnNewline;
  let hasNewline = false;
  let hasComment = false;
  let tab: SourceToken | null = null;
  let found: SourceToken | null = null;
  let comma: SourceToken | null = null;
  for (const token of tokens) {
    if (tab !== null) {
      if (atNewline && token.type !== 'comment' && token.type !== 'newline') giveUp();
      tab = null;
    }
    const type = token.type;
    if (type === 'space') {
      if (
        flow === undefined &&
        (indicator !== 'doc-start' || next?.type !== 'flow-collection') &&
        token.source.includes('\t')
      )
        tab = token;
      hasSpace = true;
    } else if (type === 'comment') {
      if (!hasSpace) giveUp();
      hasComment = true;
      atNewline = false;
    } else if (type === 'newline') {
      atNewline = true;
      hasNewline = true;
      hasSpace = true;
    } else if (type === indicator) {
      if (found !== null) giveUp();
      found = token;
      atNewline = indicator === 'seq-item-ind' || indicator === 'explicit-key-ind';
      hasSpace = false;
    } else if (type === 'comma' && flow !== undefined) {
      if (comma !== null) giveUp();
      comma = token;
      atNewline = false;
      hasSpace = false;
    } else {
      // Anchors, tags, stray indicators and errors: the composer's part.
      giveUp();
    }
  }
  const last = tokens[tokens.length - 1];
  const end = last ? last.offset + last.source.length : offset;
  if (
    tab !== null &&
    ((atNewline && tab.indent <= parentIndent) || next?.type === 'block-map' || next?.type === 'block-seq')
  )
    giveUp();
  return { found, comma, hasNewline, hasComment, end };
}

/** yaml's resolveEnd: what may follow a node on its line. */
export function checkEnd(tokens: SourceToken[] | undefined, reqSpace: boolean): number {
  let length = 0;
  if (tokens === undefined) return 0;
  let hasSpace = false;
  for (const token of tokens) {
    if (token.type === 'space' || token.type === 'newline') hasSpace = true;
    else if (token.type === 'comment') {
      if (reqSpace && !hasSpace) giveUp();
    } else giveUp();
    length += token.source.length;
  }
  return length;
}

export function readScalar(token: Token): Scalar {
  if (token.type === 'scalar' && !token.source.includes('\n')) {
    const source = token.source;
    const first = source[0];
    if (
      first === '\t' ||
      first === ',' ||
      first === '%' ||
      first === '|' ||
      first === '>' ||
      first === '@' ||
      first === '`'
    )
      giveUp();
    const valueEnd = token.offset + source.length;
    return {
      value: corePlain(source),
      plain: true,
      start: token.offset,
      valueEnd,
      end: valueEnd + checkEnd(token.end, true),
    };
  }
  if (
    token.type !== 'scalar' &&
    token.type !== 'single-quoted-scalar' &&
    token.type !== 'double-quoted-scalar' &&
    token.type !== 'block-scalar'
  )
    giveUp();
  const resolved = CST.resolveAsScalar(token, true, giveUp);
  if (resolved === null) giveUp();
  const [start, valueEnd, end] = resolved.range;
  const plain = token.type === 'scalar';
  return { value: plain ? corePlain(resolved.value) : resolved.value, plain, start, valueEnd, end };
}

/** yaml's emptyScalarPosition, for an empty node after `before` (with pos = before.length). */
export function emptyScalarPosition(offset: number, before: SourceToken[] | undefined): number {
  if (before === undefined) return offset;
  for (let i = before.length - 1; i >= 0; --i) {
    let token = before[i] as SourceToken;
    if (token.type === 'space' || token.type === 'comment' || token.type === 'newline') {
      offset -= token.source.length;
      continue;
    }
    token = before[++i] as SourceToken;
    while (token?.type === 'space') {
      offset += token.source.length;
      token = before[++i] as SourceToken;
    }
    break;
  }
  return offset;
}

/** yaml's containsNewline for a key token. */
export function containsNewline(key: Token): boolean {
  switch (key.type) {
    case 'alias':
    case 'scalar':
    case 'double-quoted-scalar':
    case 'single-quoted-scalar':
      if (key.source.includes('\n')) return true;
      if (key.end) for (const token of key.end) if (token.type === 'newline') return true;
      return false;
    default:
      return true;
  }
}
