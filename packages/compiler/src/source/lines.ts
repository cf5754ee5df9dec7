import { CST } from 'yaml';
import type { Limits } from '../limits/limits.js';
import type { SourceText } from './text.js';
import {
  corePlain,
  DataWalk,
  GIVE_UP,
  giveUp,
  type CollectionSpans,
  type FastDocument,
  type ScalarNode,
} from './walk.js';

/**
 * The fastest reading: plain data and positions straight from the text, line by line, for the
 * block YAML configurations are written in: mappings of plain keys, lists, one-line plain,
 * quoted and flow values, literal and folded block scalars, whole-line and trailing comments.
 * It accepts only text that yaml parses without an error and reads the same way (a stricter
 * subset than the CST reading's: no tab, no multi-line flow or quoted value, no blank line
 * ending a block scalar, comments indented as the line after them), and gives way to the CST
 * reading for anything else. Quoted and block scalars are resolved by yaml itself
 * (CST.resolveAsScalar). test/fast-read.test.ts compares it with the composer.
 */
export function readLines(source: SourceText, limits: Limits): FastDocument | undefined {
  const text = source.text;
  // Lone surrogates are refused before reading; a caller that skips that gets the other readings.
  if (text.includes('\t') || text.includes('\uFEFF') || !text.isWellFormed()) return undefined;
  try {
    return new LineReader(text, source, limits).document();
  } catch (error) {
    if (error === GIVE_UP) return undefined;
    throw error;
  }
}

const SPACE = 32;
const NEWLINE = 10;
const CR = 13;

/** A line break starts here: \n, or the \r of \r\n (parseYaml made every lone \r a \n). */
function isEol(c: number): boolean {
  return c === NEWLINE || c === CR;
}
const HASH = 35;
const COLON = 58;
const DASH = 45;

/** Characters that may not start a plain scalar here (YAML's indicators). */
const INDICATORS = new Set('-?:,[]{}#&*!|>\'"%@`'.split('').map((c) => c.charCodeAt(0)));

/** The flow indicators, which end a plain scalar in a flow collection. */
const FLOW_INDICATORS = new Set(',[]{}'.split('').map((c) => c.charCodeAt(0)));

class LineReader extends DataWalk {
  /** Start of the line to read next. */
  private pos = 0;

  constructor(
    private readonly text: string,
    source: SourceText,
    private readonly limits: Limits,
  ) {
    super(source);
  }

  document(): FastDocument {
    const first = this.nextContent();
    if (first < 0 || this.indentAt(first) !== 0) giveUp();
    const value = this.blockNode(first, 0, 1);
    const start = this.start;
    if (this.nextContent() >= 0) giveUp();
    return this.result(value, start);
  }

  /** The \n ending the line `at` is on, or the end of the text. */
  private lineEnd(at: number): number {
    const end = this.text.indexOf('\n', at);
    return end < 0 ? this.text.length : end;
  }

  /** Where the line's content ends: its \r\n or \n, or the end of the text. */
  private contentEnd(at: number): number {
    const end = this.lineEnd(at);
    return end > 0 && this.text.charCodeAt(end - 1) === CR ? end - 1 : end;
  }

  private indentAt(lineStart: number): number {
    let at = lineStart;
    while (this.text.charCodeAt(at) === SPACE) at++;
    return at - lineStart;
  }

  /**
   * Moves to the next line with content, over blank lines and whole-line comments (which must
   * be indented as that line, or at 0 at the end); returns its start, or -1 at the end.
   */
  private nextContent(): number {
    const text = this.text;
    let commentIndent = -1;
    while (this.pos < text.length) {
      const start = this.pos;
      const indent = this.indentAt(start);
      const at = start + indent;
      const c = text.charCodeAt(at);
      if (at >= text.length || isEol(c)) {
        this.pos = this.lineEnd(at) + 1;
        continue;
      }
      if (c === HASH) {
        if (commentIndent >= 0 && commentIndent !== indent) giveUp();
        commentIndent = indent;
        this.pos = this.lineEnd(at) + 1;
        continue;
      }
      if (commentIndent >= 0 && commentIndent !== indent) giveUp();
      if (indent === 0 && (text.startsWith('---', at) || text.startsWith('...', at) || c === 37)) giveUp();
      return start;
    }
    if (commentIndent > 0) giveUp();
    return -1;
  }

  private isSeqItem(at: number): boolean {
    if (this.text.charCodeAt(at) !== DASH) return false;
    const next = this.text.charCodeAt(at + 1);
    return next === SPACE || isEol(next) || at + 1 >= this.text.length;
  }

  /** The colon of a plain key starting at `at`, or -1 when the line holds no plain key there. */
  private keyColon(at: number): number {
    const text = this.text;
    const c = text.charCodeAt(at);
    if (INDICATORS.has(c) || c === SPACE) return -1;
    for (let i = at; i < text.length; i++) {
      const d = text.charCodeAt(i);
      if (isEol(d)) return -1;
      if (d === HASH && text.charCodeAt(i - 1) === SPACE) return -1;
      if (d === COLON) {
        const after = text.charCodeAt(i + 1);
        if (after === SPACE || isEol(after) || i + 1 >= text.length) return i;
      }
    }
    return -1;
  }

  /** A block collection whose first line starts at `lineStart`, indented by `indent`. */
  private blockNode(lineStart: number, indent: number, depth: number): unknown {
    const at = lineStart + indent;
    if (this.isSeqItem(at)) return this.blockSeq(indent, at, depth);
    if (this.keyColon(at) >= 0) return this.blockMap(indent, at, depth);
    return giveUp();
  }

  private blockMap(indent: number, first: number, depth: number): Record<string, unknown> {
    if (depth > this.limits.maxDepth) giveUp();
    const text = this.text;
    const out: Record<string, unknown> = {};
    const spans: CollectionSpans = { map: true, keys: [], at: [], kids: [] };
    const seen = new Map<string, number>();
    let at = first;
    for (;;) {
      const colon = this.keyColon(at);
      if (colon < 0 || colon - at > 1000) giveUp();
      const name = text.slice(at, colon);
      if (name.charCodeAt(name.length - 1) === SPACE) giveUp();
      const key: ScalarNode = { value: corePlain(name), plain: true, start: at, valueEnd: colon };
      this.entry(out, spans, seen, key, () => this.mapValue(colon + 1, indent, depth));
      const next = this.nextContent();
      if (next < 0) break;
      const nextIndent = this.indentAt(next);
      if (nextIndent < indent) break;
      if (nextIndent > indent) giveUp();
      at = next + indent;
    }
    this.start = first;
    this.kid = spans;
    this.valueEnd = -1;
    return out;
  }

  private blockSeq(indent: number, first: number, depth: number): unknown[] {
    if (depth > this.limits.maxDepth) giveUp();
    const text = this.text;
    const out: unknown[] = [];
    const spans: CollectionSpans = { map: false, keys: undefined, at: [], kids: [] };
    let at = first;
    for (;;) {
      this.path.push(out.length);
      let content = at + 1;
      while (text.charCodeAt(content) === SPACE) content++;
      const c = text.charCodeAt(content);
      let value: unknown;
      if (content >= text.length || isEol(c) || c === HASH) {
        value = this.onNextLines(content, indent, depth, false);
      } else if (this.isSeqItem(content)) {
        giveUp();
      } else if (this.keyColon(content) >= 0) {
        const lineStart = text.lastIndexOf('\n', content) + 1;
        value = this.blockMap(content - lineStart, content, depth + 1);
      } else {
        value = this.inlineValue(content, indent, indent, depth, false);
      }
      this.path.pop();
      out.push(value);
      spans.at.push(this.start, this.valueEnd);
      spans.kids.push(this.kid);
      const next = this.nextContent();
      if (next < 0) break;
      const nextIndent = this.indentAt(next);
      if (nextIndent < indent) break;
      if (nextIndent > indent || !this.isSeqItem(next + indent)) giveUp();
      at = next + indent;
    }
    this.start = first;
    this.kid = spans;
    this.valueEnd = -1;
    return out;
  }

  /** The value after a key's colon (`after` is just past it), in a mapping indented by `indent`. */
  private mapValue(after: number, indent: number, depth: number): unknown {
    const text = this.text;
    let at = after;
    while (text.charCodeAt(at) === SPACE) at++;
    const c = text.charCodeAt(at);
    if (at >= text.length || isEol(c) || c === HASH) return this.onNextLines(at, indent, depth, true);
    return this.inlineValue(at, indent, indent, depth, true);
  }

  /**
   * A value on the lines after its key or dash (`at` is where the line's content ended): a more
   * indented collection, a list at the key's own indentation, or nothing (null, at `at`).
   */
  private onNextLines(at: number, indent: number, depth: number, inMap: boolean): unknown {
    this.pos = this.lineEnd(at) + 1;
    const next = this.nextContent();
    if (next >= 0) {
      const nextIndent = this.indentAt(next);
      if (nextIndent > indent) return this.blockNode(next, nextIndent, depth + 1);
      if (inMap && nextIndent === indent && this.isSeqItem(next + indent))
        return this.blockSeq(indent, next + indent, depth + 1);
    }
    this.start = at;
    this.kid = undefined;
    this.valueEnd = at;
    return null;
  }

  /**
   * A value written on its key's or dash's line, starting at `at`. `indent` is the collection's
   * (lines after the value must not be indented more), `keyIndent` the column yaml's parser
   * gives a block scalar there.
   */
  private inlineValue(at: number, indent: number, keyIndent: number, depth: number, inMap: boolean): unknown {
    const text = this.text;
    const c = text.charCodeAt(at);
    let value: unknown;
    let end: number;
    if (c === 124 || c === 62) {
      if (!inMap) giveUp();
      return this.blockScalar(at, indent, keyIndent);
    }
    if (c === 34 || c === 39) {
      const scalar = this.quoted(at);
      value = scalar.value;
      end = scalar.valueEnd;
      this.setScalar(at, end);
    } else if (c === 91 || c === 123) {
      value = this.flow(at, depth + 1);
      end = this.flowEnd;
    } else {
      if (INDICATORS.has(c) && !(c === DASH && text.charCodeAt(at + 1) > SPACE)) giveUp();
      const lineEnd = this.contentEnd(at);
      let stop = at;
      while (stop < lineEnd && !(text.charCodeAt(stop) === HASH && text.charCodeAt(stop - 1) === SPACE)) stop++;
      while (text.charCodeAt(stop - 1) === SPACE) stop--;
      const written = text.slice(at, stop);
      if (written.includes(': ') || written.charCodeAt(written.length - 1) === COLON) giveUp();
      this.setScalar(at, stop);
      this.pos = this.lineEnd(at) + 1;
      this.afterValue(indent);
      return corePlain(written);
    }
    this.lineTail(end);
    this.afterValue(indent);
    return value;
  }

  private setScalar(start: number, end: number): void {
    this.start = start;
    this.kid = undefined;
    this.valueEnd = end;
  }

  /** After a value on a line: spaces, then the end of the line or a comment after a space. */
  private lineTail(end: number): void {
    const text = this.text;
    let at = end;
    while (text.charCodeAt(at) === SPACE) at++;
    const c = text.charCodeAt(at);
    if (at < text.length && !isEol(c) && !(c === HASH && at > end)) giveUp();
    this.pos = this.lineEnd(at) + 1;
  }

  /** The next line must not continue the value: no line, comment or not, indented more. */
  private afterValue(indent: number): void {
    const text = this.text;
    let at = this.pos;
    while (at < text.length) {
      const lineIndent = this.indentAt(at);
      const c = text.charCodeAt(at + lineIndent);
      if (isEol(c)) {
        at = this.lineEnd(at + lineIndent) + 1;
        continue;
      }
      if (at + lineIndent < text.length && lineIndent > indent) giveUp();
      return;
    }
  }

  /** A one-line quoted scalar, resolved by yaml. */
  private quoted(at: number): ScalarNode {
    const text = this.text;
    const quote = text.charCodeAt(at);
    let i = at + 1;
    for (;;) {
      if (i >= text.length) giveUp();
      const c = text.charCodeAt(i);
      if (isEol(c)) giveUp();
      if (quote === 34 && c === 92) {
        if (isEol(text.charCodeAt(i + 1))) giveUp();
        i += 2;
        continue;
      }
      if (c === quote) {
        if (quote === 39 && text.charCodeAt(i + 1) === 39) {
          i += 2;
          continue;
        }
        break;
      }
      i++;
    }
    const source = text.slice(at, i + 1);
    const token = {
      type: quote === 34 ? 'double-quoted-scalar' : 'single-quoted-scalar',
      offset: at,
      indent: 0,
      source,
    } as CST.FlowScalar;
    const resolved = CST.resolveAsScalar(token, true, giveUp);
    if (resolved === null) giveUp();
    this.checkStorable(resolved.value, 'value', at);
    return { value: resolved.value, plain: false, start: at, valueEnd: i + 1 };
  }

  /** Where the last flow collection ended. */
  private flowEnd = 0;

  /** A one-line flow collection of plain and quoted scalars and flow collections. */
  private flow(open: number, depth: number): unknown {
    if (depth > this.limits.maxDepth) giveUp();
    const text = this.text;
    const isMap = text.charCodeAt(open) === 123;
    const close = isMap ? 125 : 93;
    const list: unknown[] = [];
    const out: Record<string, unknown> = {};
    const spans: CollectionSpans = { map: isMap, keys: isMap ? [] : undefined, at: [], kids: [] };
    const seen = new Map<string, number>();
    let at = this.skipSpaces(open + 1);
    if (text.charCodeAt(at) === close) at++;
    else {
      for (;;) {
        if (isMap) {
          const keyEnd = this.flowPlainEnd(at, true);
          if (text.charCodeAt(keyEnd) !== COLON || text.charCodeAt(keyEnd + 1) !== SPACE) giveUp();
          const name = text.slice(at, keyEnd);
          const key: ScalarNode = { value: corePlain(name), plain: true, start: at, valueEnd: keyEnd };
          let end = 0;
          this.entry(out, spans, seen, key, () => {
            const value = this.flowValue(this.skipSpaces(keyEnd + 1), depth);
            end = this.flowEnd;
            return value;
          });
          at = end;
        } else {
          this.path.push(list.length);
          list.push(this.flowValue(at, depth));
          this.path.pop();
          spans.at.push(this.start, this.valueEnd);
          spans.kids.push(this.kid);
          at = this.flowEnd;
        }
        at = this.skipSpaces(at);
        const c = text.charCodeAt(at);
        if (c === close) {
          at++;
          break;
        }
        if (c !== 44) giveUp();
        at = this.skipSpaces(at + 1);
        if (text.charCodeAt(at) === close) giveUp();
      }
    }
    this.start = open;
    this.kid = spans;
    this.valueEnd = -1;
    this.flowEnd = at;
    return isMap ? out : list;
  }

  private skipSpaces(at: number): number {
    while (this.text.charCodeAt(at) === SPACE) at++;
    return at;
  }

  /** A value inside a flow collection; sets flowEnd. */
  private flowValue(at: number, depth: number): unknown {
    const c = this.text.charCodeAt(at);
    if (c === 91 || c === 123) return this.flow(at, depth + 1);
    if (c === 34 || c === 39) {
      const scalar = this.quoted(at);
      this.setScalar(at, scalar.valueEnd);
      this.flowEnd = scalar.valueEnd;
      return scalar.value;
    }
    const end = this.flowPlainEnd(at, false);
    this.setScalar(at, end);
    this.flowEnd = end;
    return corePlain(this.text.slice(at, end));
  }

  /** The end of a plain scalar in a flow collection (a key's ends at its colon), trailing spaces left out. */
  private flowPlainEnd(at: number, key: boolean): number {
    const text = this.text;
    const first = text.charCodeAt(at);
    // In a flow collection a plain scalar may start with "-" only before a character that is
    // neither a space nor a flow indicator ("[-]" is an error to yaml).
    if (
      INDICATORS.has(first) &&
      !(first === DASH && text.charCodeAt(at + 1) > SPACE && !FLOW_INDICATORS.has(text.charCodeAt(at + 1)))
    )
      giveUp();
    let i = at;
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 44 || c === 93 || c === 125) break;
      if (c === COLON) {
        if (key) break;
        giveUp();
      }
      if (isEol(c) || c === HASH || c === 91 || c === 123) giveUp();
    }
    if (i >= text.length) giveUp();
    let end = i;
    while (text.charCodeAt(end - 1) === SPACE) end--;
    if (end === at || (key && end !== i)) giveUp();
    return end;
  }

  /** A literal or folded block scalar without an indentation indicator, resolved by yaml. */
  private blockScalar(at: number, indent: number, keyIndent: number): unknown {
    const text = this.text;
    let headerEnd = at + 1;
    const chomp = text.charCodeAt(headerEnd);
    if (chomp === DASH || chomp === 43) headerEnd++;
    const crlf = text.charCodeAt(headerEnd) === CR;
    if (text.charCodeAt(crlf ? headerEnd + 1 : headerEnd) !== NEWLINE) giveUp();
    const contentStart = headerEnd + (crlf ? 2 : 1);
    const contentIndent = this.indentAt(contentStart);
    if (contentStart + contentIndent >= this.contentEnd(contentStart) || contentIndent <= keyIndent) giveUp();
    let line = contentStart;
    let lastContentEnd = this.lineEnd(contentStart);
    let blankAfter = false;
    while (line < text.length) {
      const lineIndent = this.indentAt(line);
      const end = this.lineEnd(line);
      if (line + lineIndent >= this.contentEnd(line)) {
        blankAfter = true;
      } else if (lineIndent >= contentIndent) {
        lastContentEnd = end;
        blankAfter = false;
      } else break;
      line = end + 1;
    }
    // A blank line ends it, or it ends the text without a line break: the lexer's chomping rules.
    if (blankAfter || lastContentEnd >= text.length) giveUp();
    const props = [
      { type: 'block-scalar-header', offset: at, indent: keyIndent, source: text.slice(at, headerEnd) },
      { type: 'newline', offset: headerEnd, indent: keyIndent, source: crlf ? '\r\n' : '\n' },
    ] as CST.SourceToken[];
    const token: CST.BlockScalar = {
      type: 'block-scalar',
      offset: at,
      indent: keyIndent,
      props,
      source: text.slice(contentStart, lastContentEnd + 1),
    };
    const resolved = CST.resolveAsScalar(token, true, giveUp);
    if (resolved === null) giveUp();
    this.setScalar(at, resolved.range[1]);
    this.pos = lastContentEnd + 1;
    this.afterValue(indent);
    return resolved.value;
  }
}
