// The line reading's (lines.ts) mechanics: moving over lines, indentation and comments, and the
// scalars it reads (plain keys, quoted and block scalars, resolved by yaml). The collections are
// lines.ts's LineReader, which extends this.
import { CST } from 'yaml';
import type { Limits } from '../limits/limits.js';
import type { SourceText } from './text.js';
import { DataWalk, giveUp, type ScalarNode } from './walk.js';

export const SPACE = 32;
export const NEWLINE = 10;
export const CR = 13;

/** A line break starts here: \n, or the \r of \r\n (parseYaml made every lone \r a \n). */
export function isEol(c: number): boolean {
  return c === NEWLINE || c === CR;
}
export const HASH = 35;
export const COLON = 58;
export const DASH = 45;

/** Characters that may not start a plain scalar here (YAML's indicators). */
export const INDICATORS = new Set('-?:,[]{}#&*!|>\'"%@`'.split('').map((c) => c.charCodeAt(0)));

/** The flow indicators, which end a plain scalar in a flow collection. */
export const FLOW_INDICATORS = new Set(',[]{}'.split('').map((c) => c.charCodeAt(0)));

export abstract class LineScanner extends DataWalk {
  /** Start of the line to read next. */
  protected pos = 0;

  constructor(
    protected readonly text: string,
    source: SourceText,
    protected readonly limits: Limits,
  ) {
    super(source);
  }

  /** The \n ending the line `at` is on, or the end of the text. */
  protected lineEnd(at: number): number {
    const end = this.text.indexOf('\n', at);
    return end < 0 ? this.text.length : end;
  }

  /** Where the line's content ends: its \r\n or \n, or the end of the text. */
  protected contentEnd(at: number): number {
    const end = this.lineEnd(at);
    return end > 0 && this.text.charCodeAt(end - 1) === CR ? end - 1 : end;
  }

  protected indentAt(lineStart: number): number {
    let at = lineStart;
    while (this.text.charCodeAt(at) === SPACE) at++;
    return at - lineStart;
  }

  /**
   * Moves to the next line with content, over blank lines and whole-line comments (which must
   * be indented as that line, or at 0 at the end); returns its start, or -1 at the end.
   */
  protected nextContent(): number {
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

  protected isSeqItem(at: number): boolean {
    if (this.text.charCodeAt(at) !== DASH) return false;
    const next = this.text.charCodeAt(at + 1);
    return next === SPACE || isEol(next) || at + 1 >= this.text.length;
  }

  /** The colon of a plain key starting at `at`, or -1 when the line holds no plain key there. */
  protected keyColon(at: number): number {
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

  protected setScalar(start: number, end: number): void {
    this.start = start;
    this.kid = undefined;
    this.valueEnd = end;
  }

  /** After a value on a line: spaces, then the end of the line or a comment after a space. */
  protected lineTail(end: number): void {
    const text = this.text;
    let at = end;
    while (text.charCodeAt(at) === SPACE) at++;
    const c = text.charCodeAt(at);
    if (at < text.length && !isEol(c) && !(c === HASH && at > end)) giveUp();
    this.pos = this.lineEnd(at) + 1;
  }

  /** The next line must not continue the value: no line, comment or not, indented more. */
  protected afterValue(indent: number): void {
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
  protected quoted(at: number): ScalarNode {
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

  protected skipSpaces(at: number): number {
    while (this.text.charCodeAt(at) === SPACE) at++;
    return at;
  }

  /** The end of a plain scalar in a flow collection (a key's ends at its colon), trailing spaces left out. */
  protected flowPlainEnd(at: number, key: boolean): number {
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
  protected blockScalar(at: number, indent: number, keyIndent: number): unknown {
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
