// The editor edge of positions (STYLE.md, practice 2): the compiler counts 1-based lines and
// columns in Unicode code points; LSP counts 0-based lines and characters in UTF-16 code units.
// A diagnostic covers the token the compiler points at, so that an editor underlines a word.
import type { Position, Range } from 'vscode-languageserver';
import { lineStarts } from '../line-starts.js';

/** The line's text without its line break. */
function lineAt(text: string, starts: number[], line: number): string {
  const start = starts[line] ?? text.length;
  const next = starts[line + 1];
  const end =
    next === undefined
      ? text.length
      : text.charCodeAt(next - 1) === 10 && text.charCodeAt(next - 2) === 13
        ? next - 2
        : next - 1;
  return text.slice(start, Math.max(start, end));
}

/**
 * The LSP position of the compiler's 1-based `line` and code-point `column` in `text`, clamped
 * to the text. A leading byte order mark is invisible to both (the compiler counts the first
 * line's columns after it; editors do not show it).
 */
export function toPosition(text: string, line: number, column: number, starts = lineStarts(text)): Position {
  const index = Math.min(Math.max(line - 1, 0), starts.length - 1);
  let content = lineAt(text, starts, index);
  if (index === 0 && content.charCodeAt(0) === 0xfeff) content = content.slice(1);
  let at = 0;
  for (let points = 1; points < column && at < content.length; points++) at += isHighSurrogateAt(content, at) ? 2 : 1;
  return { line: index, character: at };
}

function isHighSurrogateAt(text: string, at: number): boolean {
  const c = text.charCodeAt(at);
  const next = text.charCodeAt(at + 1);
  return c >= 0xd800 && c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff;
}

/**
 * The range of the token at the compiler's position: a quoted scalar with its quotes, a
 * `{{ placeholder }}`, or a plain key or scalar up to its `:`, comment, flow indicator (inside
 * a flow collection) or line end. At least one character where the line has one there; at the
 * end of a line, the empty range there.
 */
export function tokenRange(text: string, line: number, column: number, starts = lineStarts(text)): Range {
  const start = toPosition(text, line, column, starts);
  let content = lineAt(text, starts, start.line);
  const bom = start.line === 0 && content.charCodeAt(0) === 0xfeff ? 1 : 0;
  content = content.slice(bom);
  const end = tokenEnd(content, start.character);
  return { start, end: { line: start.line, character: end } };
}

function tokenEnd(line: string, at: number): number {
  if (at >= line.length) return line.length;
  const first = line[at];
  if (first === '"' || first === "'") return quotedEnd(line, at, first);
  if (line.startsWith('{{', at)) {
    const close = line.indexOf('}}', at + 2);
    if (close >= 0) return close + 2;
  }
  if (insideScalar(line, at)) return wordEnd(line, at);
  const flow = inFlow(line, at);
  let end = at;
  while (end < line.length) {
    const c = line[end];
    const next = line[end + 1];
    if (c === ':' && (next === undefined || next === ' ' || (flow && (next === ',' || next === ']' || next === '}'))))
      break;
    if (c === '#' && end > at && line[end - 1] === ' ') break;
    if (flow && (c === ',' || c === ']' || c === '}' || c === '[' || c === '{') && end > at) break;
    end += 1;
  }
  while (end > at + 1 && line[end - 1] === ' ') end -= 1;
  return Math.max(end, at + 1);
}

/** The end of the quoted scalar starting at `at` (after its closing quote), or the line's end. */
function quotedEnd(line: string, at: number, quote: string): number {
  for (let i = at + 1; i < line.length; i++) {
    if (quote === '"' && line[i] === '\\') i += 1;
    else if (line[i] === quote) {
      if (quote === "'" && line[i + 1] === "'") i += 1;
      else return i + 1;
    }
  }
  return line.length;
}

/**
 * Whether `at` is inside a scalar rather than at its start: within a quoted scalar opened before
 * it, or after the first character of a plain value (a cron's field: "0 9 * * tues").
 */
function insideScalar(line: string, at: number): boolean {
  let valueStart = 0;
  let depth = 0;
  for (let i = 0; i < at; i++) {
    const c = line[i];
    if (c === '"' || c === "'") {
      const end = quotedEnd(line, i, c);
      if (end > at) return true;
      i = end - 1;
      valueStart = end;
    } else if (c === '#' && (i === 0 || line[i - 1] === ' ')) return false;
    else if ((c === ':' || c === '-' || c === '?') && line[i + 1] === ' ') valueStart = i + 1;
    else if (c === '[' || c === '{') {
      depth += 1;
      valueStart = i + 1;
    } else if (depth > 0 && (c === ',' || c === ']' || c === '}')) {
      if (c !== ',') depth -= 1;
      valueStart = i + 1;
    }
  }
  const head = line.slice(valueStart, at).trimStart();
  return head !== '' && !/^[&!*|>]/.test(head);
}

/** The end of the word at `at` inside a scalar: up to a space, a quote, or a cron's , - or /. */
function wordEnd(line: string, at: number): number {
  let end = at;
  while (end < line.length && !/[\s"',/-]/.test(line[end] as string)) end += 1;
  return Math.max(end, at + 1);
}

/** Whether `at` is inside a flow collection opened earlier on its line (quotes skipped). */
function inFlow(line: string, at: number): boolean {
  let depth = 0;
  for (let i = 0; i < at; i++) {
    const c = line[i];
    if (c === '"' || c === "'") i = quotedEnd(line, i, c) - 1;
    else if (c === '#' && (i === 0 || line[i - 1] === ' ')) return false;
    else if (c === '[' || c === '{') depth += 1;
    else if ((c === ']' || c === '}') && depth > 0) depth -= 1;
  }
  return depth > 0;
}
