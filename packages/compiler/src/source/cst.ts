import { CST } from 'yaml';
import type { IssueCode } from '../issues/codes.js';
import { joinPointer, splitPointer } from '../issues/issue.js';
import type { Limits } from '../limits/limits.js';
import type { SourceText } from './text.js';

/**
 * The fast reading of a YAML document: plain data and positions straight from yaml's concrete
 * syntax tree, without composing a Document. It covers what configurations are written in
 * (block and flow collections, plain, quoted and block scalars, comments, one document) and
 * repeats yaml's composer checks for that part of YAML. Anything else (an alias, an anchor, a
 * tag, an explicit "?" key, a key that is not a scalar, a limit reached, anything the composer
 * would call an error) makes it give up, and the caller composes the document as before, so
 * that every message and position stays yaml's own. See docs/decisions.md (compiler, fast path).
 */

/** Where a node is written: its start offset and, for a scalar, the end of its written value. */
export interface NodeSpan {
  start: number;
  end?: number | undefined;
}

/** Finds the node (or with `key`, the mapping key, whose span is its start only) a JSON pointer leads to. */
export interface Locator {
  find(pointer: string, key: boolean): NodeSpan | null;
}

/** A walker issue, kept until the reading succeeds. */
export interface FoundIssue {
  code: IssueCode;
  message: string;
  pointer: string;
  offset: number;
}

export interface FastDocument {
  value: unknown;
  locator: Locator;
  flagged: Set<string>;
  found: FoundIssue[];
}

/** Thrown inside the reading when it gives up; never leaves this module. */
class GiveUp {}
const GIVE_UP = new GiveUp();
function giveUp(): never {
  throw GIVE_UP;
}

type Token = CST.Token;
type Item = CST.CollectionItem;
type SourceToken = CST.SourceToken;

/** A mapping's or a list's positions: per entry, key start (mappings), value start and value end. */
interface CollectionSpans {
  map: boolean;
  /** Mapping keys in order (undefined for a key that is not a string). */
  keys: (string | undefined)[] | undefined;
  /** Per entry: [key start,] value start, value end (-1 when the value is not a scalar). */
  at: number[];
  kids: (CollectionSpans | undefined)[];
  index?: Map<string, number>;
}

/** Reads a document's tokens, or returns undefined when the composer must do it. */
export function readFast(tokens: Token[], source: SourceText, limits: Limits): FastDocument | undefined {
  let doc: CST.Document | undefined;
  for (const token of tokens) {
    if (token.type === 'space' || token.type === 'newline' || token.type === 'comment') continue;
    if (token.type !== 'document' || doc !== undefined) return undefined;
    doc = token;
  }
  if (doc === undefined) return undefined;
  try {
    return new Reader(source, limits).document(doc);
  } catch (error) {
    if (error === GIVE_UP) return undefined;
    throw error;
  }
}

interface Props {
  found: SourceToken | null;
  comma: SourceToken | null;
  hasNewline: boolean;
  hasComment: boolean;
  end: number;
}

const coreNull = /^(?:~|[Nn]ull|NULL)?$/;
const coreBool = /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/;
const coreOct = /^0o[0-7]+$/;
const coreInt = /^[-+]?[0-9]+$/;
const coreHex = /^0x[0-9a-fA-F]+$/;
const coreNaN = /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;
const coreExp = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/;
const coreFloat = /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/;

/** A plain scalar's value under the YAML 1.2 core schema, as yaml resolves it. */
function corePlain(text: string): unknown {
  const c = text.charCodeAt(0);
  // Letters other than n, N, t, T, f, F start nothing but a string.
  if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90)) {
    if (c !== 110 && c !== 78 && c !== 116 && c !== 84 && c !== 102 && c !== 70) return text;
  }
  if (coreNull.test(text)) return null;
  if (coreBool.test(text)) return c === 116 || c === 84;
  if (coreOct.test(text)) return parseInt(text.substring(2), 8);
  if (coreInt.test(text)) return parseInt(text, 10);
  if (coreHex.test(text)) return parseInt(text.substring(2), 16);
  if (coreNaN.test(text)) return text.slice(-3).toLowerCase() === 'nan' ? NaN : text[0] === '-' ? -Infinity : Infinity;
  if (coreExp.test(text) || coreFloat.test(text)) return parseFloat(text);
  return text;
}

/** A scalar as the composer makes it: value, plainness, range[0], range[1], range[2]. */
interface Scalar {
  value: unknown;
  plain: boolean;
  start: number;
  valueEnd: number;
  end: number;
}

function isBlock(token: Token | undefined): boolean {
  return token !== undefined && (token.type === 'block-map' || token.type === 'block-seq');
}

class Reader {
  private readonly path: (string | number)[] = [];
  private readonly flagged = new Set<string>();
  private readonly found: FoundIssue[] = [];
  /** Set by `node`: the node's range[2] (where the composer continues) and its spans. */
  private end = 0;
  /** And its range[0]. */
  private start = 0;
  private kid: CollectionSpans | undefined;
  private valueEnd = -1;

  constructor(
    private readonly source: SourceText,
    private readonly limits: Limits,
  ) {}

  document(doc: CST.Document): FastDocument {
    const props = this.props(doc.start, undefined, 'doc-start', doc.value ?? doc.end?.[0], doc.offset, 0, true);
    const value = doc.value;
    if (props.found !== null && value !== undefined && isBlock(value) && !props.hasNewline) giveUp();
    // A block scalar at the root is composed with the root's own indentation rule: leave it to yaml.
    if (value?.type === 'block-scalar') giveUp();
    let result: unknown;
    let start: number;
    if (value === undefined) {
      start = emptyScalarPosition(props.end, doc.start);
      this.end = start;
      this.kid = undefined;
      this.valueEnd = start;
      result = null;
    } else {
      start = value.offset;
      result = this.node(value, 1);
    }
    this.checkEnd(doc.end, false);
    const root: CollectionSpans = { map: false, keys: undefined, at: [start, this.valueEnd], kids: [this.kid] };
    return { value: result, locator: new SpanLocator(root), flagged: this.flagged, found: this.found };
  }

  /** yaml's resolveProps for tokens without anchors or tags; any error gives up. */
  private props(
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
        if (flow === undefined && (indicator !== 'doc-start' || next?.type !== 'flow-collection') && token.source.includes('\t')) tab = token;
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
    if (tab !== null && ((atNewline && tab.indent <= parentIndent) || next?.type === 'block-map' || next?.type === 'block-seq')) giveUp();
    return { found, comma, hasNewline, hasComment, end };
  }

  /** yaml's resolveEnd: what may follow a node on its line. */
  private checkEnd(tokens: SourceToken[] | undefined, reqSpace: boolean): number {
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

  private scalar(token: Token): Scalar {
    if (token.type === 'scalar' && !token.source.includes('\n')) {
      const source = token.source;
      const first = source[0];
      if (first === '\t' || first === ',' || first === '%' || first === '|' || first === '>' || first === '@' || first === '`') giveUp();
      const valueEnd = token.offset + source.length;
      return { value: corePlain(source), plain: true, start: token.offset, valueEnd, end: valueEnd + this.checkEnd(token.end, true) };
    }
    if (token.type !== 'scalar' && token.type !== 'single-quoted-scalar' && token.type !== 'double-quoted-scalar' && token.type !== 'block-scalar') giveUp();
    const resolved = CST.resolveAsScalar(token, true, giveUp);
    if (resolved === null) giveUp();
    const [start, valueEnd, end] = resolved.range;
    const plain = token.type === 'scalar';
    return { value: plain ? corePlain(resolved.value) : resolved.value, plain, start, valueEnd, end };
  }

  private emptyScalar(offset: number, before: SourceToken[] | undefined, props: Props): unknown {
    const start = emptyScalarPosition(offset, before);
    this.start = start;
    this.kid = undefined;
    this.valueEnd = start;
    this.end = props.hasComment ? props.end : start;
    return null;
  }

  /** Composes and walks a node in one go; sets `end`, `kid` and `valueEnd`. */
  private node(token: Token, depth: number): unknown {
    switch (token.type) {
      case 'scalar':
      case 'single-quoted-scalar':
      case 'double-quoted-scalar':
      case 'block-scalar': {
        const scalar = this.scalar(token);
        this.start = scalar.start;
        this.end = scalar.end;
        this.kid = undefined;
        this.valueEnd = scalar.valueEnd;
        if (typeof scalar.value === 'string') this.checkStorable(scalar.value, 'value', scalar.start);
        return scalar.value;
      }
      case 'block-map':
      case 'block-seq':
      case 'flow-collection':
      {
        if (depth > this.limits.maxDepth) giveUp();
        const value =
          token.type === 'block-map' ? this.blockMap(token, depth) : token.type === 'block-seq' ? this.blockSeq(token, depth) : this.flowCollection(token, depth);
        // Set after the items, which set it for themselves.
        this.start = token.offset;
        return value;
      }
      default:
        giveUp();
    }
  }

  private blockMap(map: CST.BlockMap, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const spans: CollectionSpans = { map: true, keys: [], at: [], kids: [] };
    const seen = new Map<string, number>();
    let offset = map.offset;
    let commentEnd: number | null = null;
    for (const item of map.items) {
      const { start, sep, value } = item;
      const key = item.key ?? undefined;
      const keyProps = this.props(start, undefined, 'explicit-key-ind', key ?? sep?.[0], offset, map.indent, true);
      if (keyProps.found !== null) giveUp();
      if (key !== undefined && (key.type === 'block-seq' || ('indent' in key && key.indent !== map.indent))) giveUp();
      if (sep === undefined) {
        commentEnd = keyProps.end;
        continue;
      }
      if (key === undefined || containsNewline(key)) giveUp();
      const keyScalar = this.keyScalar(key);
      const valueProps = this.props(sep, undefined, 'map-value-ind', value, keyScalar.end, map.indent, false);
      offset = valueProps.end;
      if (valueProps.found === null) giveUp();
      if (value?.type === 'block-map' && !valueProps.hasNewline) giveUp();
      if (keyProps.end < valueProps.found.offset - 1024) giveUp();
      this.entry(out, spans, seen, keyScalar, () =>
        value === undefined ? this.emptyScalar(offset, sep, valueProps) : this.node(value, depth + 1),
      );
      offset = this.end;
    }
    if (commentEnd !== null && commentEnd !== 0 && commentEnd < offset) giveUp();
    this.end = commentEnd ?? offset;
    this.kid = spans;
    this.valueEnd = -1;
    return out;
  }

  private blockSeq(seq: CST.BlockSequence, depth: number): unknown[] {
    const out: unknown[] = [];
    const spans: CollectionSpans = { map: false, keys: undefined, at: [], kids: [] };
    let offset = seq.offset;
    let commentEnd: number | null = null;
    for (const { start, value } of seq.items) {
      const props = this.props(start, undefined, 'seq-item-ind', value, offset, seq.indent, true);
      if (props.found === null) {
        if (value !== undefined) giveUp();
        commentEnd = props.end;
        continue;
      }
      this.path.push(out.length);
      out.push(value === undefined ? this.emptyScalar(props.end, start, props) : this.node(value, depth + 1));
      this.path.pop();
      spans.at.push(this.start, this.valueEnd);
      spans.kids.push(this.kid);
      offset = this.end;
    }
    this.end = commentEnd ?? offset;
    this.kid = spans;
    this.valueEnd = -1;
    return out;
  }

  private flowCollection(fc: CST.FlowCollection, depth: number): unknown {
    const isMap = fc.start.source === '{';
    const name = isMap ? 'flow map' : 'flow sequence';
    const list: unknown[] = [];
    const out: Record<string, unknown> = {};
    const spans: CollectionSpans = { map: isMap, keys: isMap ? [] : undefined, at: [], kids: [] };
    const seen = new Map<string, number>();
    let offset = fc.offset + fc.start.source.length;
    for (let i = 0; i < fc.items.length; ++i) {
      const { start, sep, value } = fc.items[i] as Item;
      const key = fc.items[i]?.key ?? undefined;
      const props = this.props(start, name, 'explicit-key-ind', key ?? sep?.[0], offset, fc.indent, false);
      if (props.found !== null) giveUp();
      if (sep === undefined && value === undefined) {
        if (key !== undefined) giveUp();
        if (i === 0 ? props.comma !== null : i < fc.items.length - 1) giveUp();
        offset = props.end;
        continue;
      }
      if (i === 0 ? props.comma !== null : props.comma === null) giveUp();
      if (!isMap) {
        // A "key: value" pair in a flow sequence makes a mapping of its own: the composer's part.
        if (sep !== undefined || key !== undefined || value === undefined || isBlock(value)) giveUp();
        this.path.push(list.length);
        list.push(this.node(value, depth + 1));
        this.path.pop();
        spans.at.push(this.start, this.valueEnd);
        spans.kids.push(this.kid);
        offset = this.end;
        continue;
      }
      if (key === undefined || isBlock(key) || key.type === 'block-scalar') giveUp();
      const keyScalar = this.keyScalar(key);
      const valueProps = this.props(sep ?? [], name, 'map-value-ind', value, keyScalar.end, fc.indent, false);
      if (valueProps.found === null && value !== undefined) giveUp();
      if (isBlock(value)) giveUp();
      if (value === undefined && valueProps.found === null) {
        // "{ a }": the pair has no value node; its position is the key's.
        this.entry(out, spans, seen, keyScalar, () => {
          this.start = keyScalar.start;
          this.end = valueProps.end;
          this.kid = undefined;
          this.valueEnd = keyScalar.valueEnd;
          return null;
        });
        offset = valueProps.end;
        continue;
      }
      this.entry(out, spans, seen, keyScalar, () =>
        value === undefined ? this.emptyScalar(valueProps.end, sep, valueProps) : this.node(value, depth + 1),
      );
      offset = this.end;
    }
    const [close, ...rest] = fc.end;
    if (close?.source !== (isMap ? '}' : ']')) giveUp();
    const closeEnd = close.offset + close.source.length;
    this.end = closeEnd + (rest.length > 0 ? this.checkEnd(rest as SourceToken[], true) : 0);
    this.kid = spans;
    this.valueEnd = -1;
    return isMap ? out : list;
  }

  /** A mapping key: a one-line flow scalar, as the composer would compose it at a key. */
  private keyScalar(key: Token): Scalar {
    if (key.type !== 'scalar' && key.type !== 'single-quoted-scalar' && key.type !== 'double-quoted-scalar') giveUp();
    return this.scalar(key);
  }

  /**
   * One mapping entry, as the old walker took it: a key that is not a storable string is
   * reported and its value walked but left out; a merge key is refused; a duplicate reported.
   */
  private entry(
    out: Record<string, unknown>,
    spans: CollectionSpans,
    seen: Map<string, number>,
    key: Scalar,
    read: () => unknown,
  ): void {
    const keys = spans.keys as (string | undefined)[];
    const record = () => {
      spans.at.push(key.start, this.start, this.valueEnd);
      spans.kids.push(this.kid);
    };
    if (typeof key.value !== 'string') {
      this.fail('yaml.non_string_key', `Mapping keys must be plain strings; this one is ${describeKey(key.value)}.`, key.start);
      read();
      keys.push(undefined);
      record();
      return;
    }
    const name = key.value;
    if (this.refuseKey(name, key.start)) {
      read();
      keys.push(name);
      record();
      return;
    }
    this.path.push(name);
    if (name === '<<' && key.plain) {
      this.fail('yaml.merge_key', 'Merge keys (<<) are not allowed; write the keys out or use an alias for the whole value.', key.start);
      read();
      this.path.pop();
      keys.push(name);
      record();
      return;
    }
    const first = seen.get(name);
    if (first === undefined) seen.set(name, key.start);
    else {
      const { line, column } = this.source.position(first);
      this.fail('yaml.duplicate_key', `The key "${name}" is already defined at line ${line}, column ${column}.`, key.start);
    }
    // A skipped value is walked without its key on the path; a kept one with it.
    const value = read();
    this.path.pop();
    keys.push(name);
    record();
    if (name === '__proto__') Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
    else out[name] = value;
  }

  private refuseKey(name: string, offset: number): boolean {
    const refused = unstorable(name, 'key');
    for (const [code, message] of refused) this.fail(code, message, offset);
    return refused.length > 0;
  }

  private checkStorable(text: string, what: 'key' | 'value', offset: number): void {
    for (const [code, message] of unstorable(text, what)) this.fail(code, message, offset);
  }

  private fail(code: IssueCode, message: string, offset: number): void {
    const pointer = joinPointer('', ...this.path);
    this.flagged.add(pointer);
    this.found.push({ code, message, pointer, offset });
  }
}

/** yaml's emptyScalarPosition, for an empty node after `before` (with pos = before.length). */
function emptyScalarPosition(offset: number, before: SourceToken[] | undefined): number {
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
function containsNewline(key: Token): boolean {
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

function describeKey(value: unknown): string {
  return value === null ? 'null' : `a ${typeof value}`;
}

/**
 * What the raw text may not hold but a double-quoted string's escapes can still make: U+0000
 * ("\0", "\u0000"), which PostgreSQL refuses in text and jsonb, and lone surrogates
 * ("\uD800"), which jsonb refuses and text would turn into U+FFFD.
 */
export function unstorable(text: string, what: 'key' | 'value'): [IssueCode, string][] {
  const nul = text.includes('\u0000');
  if (!nul && text.isWellFormed()) return [];
  const found: [IssueCode, string][] = [];
  if (nul) {
    found.push(['text.nul_character', `The ${what} holds the NUL character (U+0000, written as an escape such as \\0 or \\u0000); remove it: the hub stores text, which cannot hold NUL.`]);
  }
  if (!text.isWellFormed()) {
    found.push(['text.malformed_unicode', `The ${what} holds a lone surrogate (an escape such as \\uD800 without its pair); remove it or escape the whole character (\\U0001F600): the hub stores well-formed Unicode only.`]);
  }
  return found;
}

/** Finds nodes by pointer in the spans the fast reading kept, as locate does in a Document. */
class SpanLocator implements Locator {
  constructor(private readonly root: CollectionSpans) {}

  find(pointer: string, key: boolean): NodeSpan | null {
    let spans: CollectionSpans | undefined = this.root.kids[0];
    let start = this.root.at[0] as number;
    let end = this.root.at[1] as number;
    let keyStart: number | undefined;
    for (const segment of splitPointer(pointer)) {
      keyStart = undefined;
      if (spans === undefined) break;
      let index: number | undefined;
      if (spans.map) index = indexOf(spans, segment);
      else if (/^\d+$/.test(segment)) {
        index = Number(segment);
        if (index >= spans.kids.length) index = undefined;
      }
      if (index === undefined) break;
      const at = spans.at;
      if (spans.map) {
        keyStart = at[3 * index] as number;
        start = at[3 * index + 1] as number;
        end = at[3 * index + 2] as number;
      } else {
        start = at[2 * index] as number;
        end = at[2 * index + 1] as number;
      }
      spans = spans.kids[index];
    }
    if (key && keyStart !== undefined) return { start: keyStart };
    return { start, end: end < 0 ? undefined : end };
  }
}

/** The first entry of a key, as yaml's pairs are searched; the index is built on first use. */
function indexOf(spans: CollectionSpans, key: string): number | undefined {
  if (spans.index === undefined) {
    spans.index = new Map();
    const keys = spans.keys as (string | undefined)[];
    for (let i = 0; i < keys.length; i++) {
      const name = keys[i];
      if (name !== undefined && !spans.index.has(name)) spans.index.set(name, i);
    }
  }
  return spans.index.get(key);
}
