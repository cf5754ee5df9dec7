import type { IssueCode } from '../issues/codes.js';
import { joinPointer, splitPointer } from '../issues/issue.js';
import type { SourceText } from './text.js';

// What the fast readings (cst.ts, lines.ts) share: the old walker's rules for mapping entries,
// the issues it reports, and positions kept as compact spans instead of a Document.

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
export const GIVE_UP = new GiveUp();
export function giveUp(): never {
  throw GIVE_UP;
}

/** A mapping's or a list's positions: per entry, key start (mappings), value start and value end. */
export interface CollectionSpans {
  map: boolean;
  /** Mapping keys in order (undefined for a key that is not a string). */
  keys: (string | undefined)[] | undefined;
  /** Per entry: [key start,] value start, value end (-1 when the value is not a scalar). */
  at: number[];
  kids: (CollectionSpans | undefined)[];
  index?: Map<string, number>;
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
export function corePlain(text: string): unknown {
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

/** A scalar as the composer makes it: value, plainness, range[0], range[1]. */
export interface ScalarNode {
  value: unknown;
  plain: boolean;
  start: number;
  valueEnd: number;
}

/** The walk of the old reading, over nodes a fast reading makes: path, issues, spans. */
export class DataWalk {
  protected readonly path: (string | number)[] = [];
  protected readonly flagged = new Set<string>();
  protected readonly found: FoundIssue[] = [];
  /** Set by each node read: its range[0], its spans if a collection, range[1] if a scalar (else -1). */
  protected start = 0;
  protected kid: CollectionSpans | undefined;
  protected valueEnd = -1;

  constructor(protected readonly source: SourceText) {}

  protected result(value: unknown, start: number): FastDocument {
    const root: CollectionSpans = { map: false, keys: undefined, at: [start, this.valueEnd], kids: [this.kid] };
    return { value, locator: new SpanLocator(root), flagged: this.flagged, found: this.found };
  }

  /**
   * One mapping entry, as the old walker took it: a key that is not a storable string is
   * reported and its value walked but left out; a merge key is refused; a duplicate reported.
   */
  protected entry(
    out: Record<string, unknown>,
    spans: CollectionSpans,
    seen: Map<string, number>,
    key: ScalarNode,
    read: () => unknown,
  ): void {
    const keys = spans.keys as (string | undefined)[];
    const record = () => {
      spans.at.push(key.start, this.start, this.valueEnd);
      spans.kids.push(this.kid);
    };
    if (typeof key.value !== 'string') {
      this.fail(
        'yaml.non_string_key',
        `Mapping keys must be plain strings; this one is ${describeKey(key.value)}.`,
        key.start,
      );
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
      this.fail(
        'yaml.merge_key',
        'Merge keys (<<) are not allowed; write the keys out or use an alias for the whole value.',
        key.start,
      );
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
      this.fail(
        'yaml.duplicate_key',
        `The key "${name}" is already defined at line ${line}, column ${column}.`,
        key.start,
      );
    }
    // A skipped value is walked without its key on the path; a kept one with it.
    const value = read();
    this.path.pop();
    keys.push(name);
    record();
    if (name === '__proto__')
      Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
    else out[name] = value;
  }

  protected refuseKey(name: string, offset: number): boolean {
    const refused = unstorable(name, 'key');
    for (const [code, message] of refused) this.fail(code, message, offset);
    return refused.length > 0;
  }

  protected checkStorable(text: string, what: 'key' | 'value', offset: number): void {
    for (const [code, message] of unstorable(text, what)) this.fail(code, message, offset);
  }

  protected fail(code: IssueCode, message: string, offset: number): void {
    const pointer = joinPointer('', ...this.path);
    this.flagged.add(pointer);
    this.found.push({ code, message, pointer, offset });
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
    found.push([
      'text.nul_character',
      `The ${what} holds the NUL character (U+0000, written as an escape such as \\0 or \\u0000); remove it: the hub stores text, which cannot hold NUL.`,
    ]);
  }
  if (!text.isWellFormed()) {
    found.push([
      'text.malformed_unicode',
      `The ${what} holds a lone surrogate (an escape such as \\uD800 without its pair); remove it or escape the whole character (\\U0001F600): the hub stores well-formed Unicode only.`,
    ]);
  }
  return found;
}

/** Finds nodes by pointer in the spans the fast reading kept, as locate does in a Document. */
export class SpanLocator implements Locator {
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
