// Which partials a document includes (includes.ts) costs a full YAML parse, twice a 1,000-line
// configuration's compile. Most keystrokes cannot change the answer: letters typed into the
// value of a plain `key: value` line. Such an edit keeps the last answer; anything else parses.
import { includesOf, type IncludeShape } from '../includes.js';

/** Characters whose typing or deletion never changes a YAML document's structure inside a value. */
const SAFE = /^[A-Za-z0-9_.\- ]*$/;
/** A simple block key and its value: `  - key: value`, the key plain. */
const KEY_LINE = /^( *)((?:- +)*)([A-Za-z0-9_.-]+): /;
/** An include whose value cannot span lines or name an anchor: a plain or one-line quoted path. */
const SIMPLE_INCLUDE = /^ *(?:- +)*include: *(?:[^\s"'&*!|>{[#][^#]*|"[^"\\]*"|'[^']*')? *(?:#.*)?$/;

/** What follows `include` where it may be a key: a closing quote, spaces, then a colon or the line's end. */
const INCLUDE_KEY_END = /["']?[ \t]*(?:[:\r\n]|$)/y;

export class IncludeCache {
  private readonly last = new Map<string, { text: string; includes: string[] }>();

  /** includesOf(`text`, `shape`), from the last answer for `key` when the edit since cannot change it. */
  get(key: string, text: string, shape: IncludeShape): string[] {
    const last = this.last.get(key);
    if (last !== undefined && (last.text === text || keepsIncludes(last.text, text))) {
      this.last.set(key, { text, includes: last.includes });
      return last.includes;
    }
    const includes = includesOf(text, shape);
    this.last.set(key, { text, includes });
    return includes;
  }
}

/**
 * Whether `after` has the includes of `before`: one changed stretch, on one line, of SAFE
 * characters only, inside the value of a simple `key: value` line whose key is not include,
 * the line holding no anchor, alias, tag, flow collection, quote or comment (so that nothing
 * typed makes or breaks one), and every include line of the document simple.
 */
export function keepsIncludes(before: string, after: string): boolean {
  let start = 0;
  const shorter = Math.min(before.length, after.length);
  while (start < shorter && before.charCodeAt(start) === after.charCodeAt(start)) start += 1;
  let end = 0;
  while (
    end < shorter - start &&
    before.charCodeAt(before.length - 1 - end) === after.charCodeAt(after.length - 1 - end)
  )
    end += 1;
  const removed = before.slice(start, before.length - end);
  const typed = after.slice(start, after.length - end);
  if (!SAFE.test(removed) || !SAFE.test(typed)) return false;
  const lineStart = Math.max(after.lastIndexOf('\n', start - 1), after.lastIndexOf('\r', start - 1)) + 1;
  const lineEnd = endOfLine(after, start);
  for (const line of [before.slice(lineStart, endOfLine(before, start)), after.slice(lineStart, lineEnd)]) {
    const key = KEY_LINE.exec(line);
    // The stretch must lie after the key's ": " (in the value), and the key must be no include.
    if (key === null || key[3] === 'include' || start - lineStart < key[0].length) return false;
    // A value on the line in both (else the key's value is the lines below it), plain, starting no indicator.
    const value = line.slice(key[0].length).trim();
    if (value === '' || value.startsWith('-') || value.startsWith('?') || /[:&*!{}[\]"'#|>%@`\t]/.test(value))
      return false;
  }
  return includeLinesSimple(after);
}

function endOfLine(text: string, from: number): number {
  const newline = text.indexOf('\n', from);
  const end = newline < 0 ? text.length : newline;
  const cr = text.slice(from, end).indexOf('\r');
  return cr < 0 ? end : from + cr;
}

/**
 * Whether every line that may hold an include key (`include` before a colon, or at a line's end
 * as a complex key) is a simple one-line include; else any edit may change what is included.
 */
function includeLinesSimple(text: string): boolean {
  for (let at = text.indexOf('include'); at >= 0; at = text.indexOf('include', at + 7)) {
    INCLUDE_KEY_END.lastIndex = at + 7;
    if (!INCLUDE_KEY_END.test(text)) continue;
    const lineStart = Math.max(text.lastIndexOf('\n', at), text.lastIndexOf('\r', at)) + 1;
    if (!SIMPLE_INCLUDE.test(text.slice(lineStart, endOfLine(text, at)))) return false;
  }
  return true;
}
