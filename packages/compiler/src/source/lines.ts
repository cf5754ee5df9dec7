import type { Limits } from '../limits/limits.js';
import { COLON, DASH, HASH, INDICATORS, isEol, LineScanner, SPACE } from './lines-scan.js';
import type { SourceText } from './text.js';
import { corePlain, GIVE_UP, giveUp, type CollectionSpans, type FastDocument, type ScalarNode } from './walk.js';

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

class LineReader extends LineScanner {
  document(): FastDocument {
    const first = this.nextContent();
    if (first < 0 || this.indentAt(first) !== 0) giveUp();
    const value = this.blockNode(first, 0, 1);
    const start = this.start;
    if (this.nextContent() >= 0) giveUp();
    return this.result(value, start);
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
}
