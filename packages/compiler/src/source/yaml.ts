import { Composer, Parser, type Document } from 'yaml';
import type { CST } from 'yaml';
import type { IssueCollector } from '../issues/collect.js';
import type { Limits } from '../limits/limits.js';
import { Abort, Walker } from './compose-walk.js';
import { readFast, type FastDocument, type Locator } from './cst.js';
import { readLines } from './lines.js';
import { DocumentLocator } from './locate.js';
import { SourceText, stripBom } from './text.js';

/** A parsed YAML document, its plain value, and what positions need. */
export interface ParsedDocument {
  file: string | undefined;
  source: SourceText;
  value: unknown;
  /** Where each pointer's node is written. */
  locator: Locator;
  /** Pointers of nodes with a YAML issue: the schema does not report them a second time. */
  flagged: Set<string>;
  /** Pointers the schema rejected: the rules do not report them a second time. */
  rejected: Set<string>;
}

/** Whether `pointer` is one of `pointers` or lies below one of them. */
export function covered(pointers: Set<string>, pointer: string): boolean {
  if (pointers.size === 0) return false;
  for (let at = pointer; ; at = at.slice(0, at.lastIndexOf('/'))) {
    if (pointers.has(at)) return true;
    if (at === '') return false;
  }
}

const composerOptions = {
  version: '1.2',
  schema: 'core',
  merge: false,
  uniqueKeys: false,
  prettyErrors: false,
  keepSourceTokens: false,
} as const;

/**
 * Which fast readings parseYaml tries (both, always, in use). Tests turn them off to hold the
 * public functions' results to the composed reading's on the same input.
 */
export const fastReadings = { lines: true, cst: true };

/**
 * Parses one YAML file under DECISIONS.md's policy. Returns undefined when the document is
 * unusable (syntax errors or a resource limit); the reasons are in `issues`.
 */
export function parseYaml(
  input: string,
  file: string | undefined,
  limits: Limits,
  issues: IssueCollector,
): ParsedDocument | undefined {
  // YAML's parser knows \n and \r\n; a lone \r (old Mac files) becomes \n, offsets unchanged.
  const source = new SourceText(stripBom(input).replace(/\r(?!\n)/g, '\n'));
  const where = (offset: number) => ({ file, source, offset });
  // YAML 1.2 allows no C0 control character but tab and line breaks, nor DEL, unescaped.
  const control = source.text.search(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/);
  if (control >= 0) {
    const code = source.text.charCodeAt(control).toString(16).toUpperCase().padStart(4, '0');
    const advice =
      code === '0000'
        ? 'remove it: the hub cannot store it, escaped or not'
        : 'write it escaped in a double-quoted string';
    issues.add('yaml.syntax', `The control character U+${code} may not appear in YAML; ${advice}.`, '', where(control));
    return undefined;
  }
  // The fastest reading that covers the text: line by line, from yaml's CST, or composed.
  const fast = (fastReadings.lines ? readLines(source, limits) : undefined) ?? readParsed(source, limits);
  if (Array.isArray(fast)) return composeYaml(fast, source, file, limits, issues);
  for (const issue of fast.found) issues.add(issue.code, issue.message, issue.pointer, where(issue.offset));
  return { file, source, value: fast.value, locator: fast.locator, flagged: fast.flagged, rejected: new Set() };
}

/** The CST reading, or the tokens for the composer when it gives way. */
function readParsed(source: SourceText, limits: Limits): FastDocument | CST.Token[] {
  const tokens = Array.from(new Parser().parse(source.text));
  return (fastReadings.cst ? readFast(tokens, source, limits) : undefined) ?? tokens;
}

/**
 * The general reading: yaml composes a Document, and a walk turns it into plain data. The fast
 * reading gives way to it for whatever it does not cover; the two agree on everything it does
 * (test/fast-read.test.ts compares them).
 */
export function composeYaml(
  tokens: CST.Token[],
  source: SourceText,
  file: string | undefined,
  limits: Limits,
  issues: IssueCollector,
): ParsedDocument | undefined {
  const where = (offset: number) => ({ file, source, offset });
  const tooDeep = findTooDeep(tokens, limits.maxDepth);
  if (tooDeep !== undefined) {
    issues.add('limit.depth', `The YAML nests deeper than ${limits.maxDepth} levels.`, '', where(tooDeep));
    return undefined;
  }

  const docs = compose(tokens);
  const doc = docs[0];
  if (doc === undefined) return undefined;
  if (docs.length > 1) {
    const second = docs[1]?.range[0] ?? 0;
    issues.add(
      'yaml.multiple_documents',
      `The file holds ${docs.length} YAML documents; it must hold exactly one.`,
      '',
      where(second),
    );
  }
  // Only the first syntax error: the parser's later ones mostly echo it on valid lines.
  const syntax = doc.errors[0];
  if (syntax !== undefined) {
    const place = syntaxPlace(source.text, tokens, syntax);
    issues.add('yaml.syntax', place.message ?? firstLine(syntax.message), '', where(place.offset));
    return undefined;
  }
  const walker = new Walker(doc, limits, issues, source, file);
  try {
    const value = walker.toValue(doc.contents, 1, false);
    const locator = new DocumentLocator(doc, walker.aliases);
    return { file, source, value, locator, flagged: walker.flagged, rejected: new Set() };
  } catch (error) {
    if (error instanceof Abort) return undefined;
    throw error;
  }
}

function firstLine(message: string): string {
  const line = message.split('\n')[0] ?? message;
  const text = line.replace(/ at line \d+, column \d+:?$/, '');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}${/[.!?]$/.test(text) ? '' : '.'}`;
}

/**
 * Composes the documents. The YAML library makes an Error (with a stack trace) for each warning
 * and error; thousands of them in one input would cost seconds, so traces are off meanwhile.
 */
function compose(tokens: CST.Token[]): Document.Parsed[] {
  const docs: Document.Parsed[] = [];
  // A V8 setting; elsewhere it is a harmless property.
  const errors = Error as { stackTraceLimit?: number };
  const limit = errors.stackTraceLimit;
  errors.stackTraceLimit = 0;
  try {
    const composer = new Composer(composerOptions);
    for (const token of tokens) docs.push(...composer.next(token));
    docs.push(...composer.end(true));
  } finally {
    errors.stackTraceLimit = limit;
  }
  return docs;
}

/** Every node token of the concrete syntax tree with its depth (collections count), without recursion. */
function* nodeTokens(tokens: CST.Token[], maxDepth = Infinity): Generator<[CST.Token, number]> {
  const stack: [CST.Token, number][] = [];
  for (const token of tokens) if (token.type === 'document' && token.value) stack.push([token.value, 1]);
  while (stack.length > 0) {
    const entry = stack.pop() as [CST.Token, number];
    yield entry;
    const [token, depth] = entry;
    if (token.type !== 'block-map' && token.type !== 'block-seq' && token.type !== 'flow-collection') continue;
    if (depth > maxDepth) continue;
    for (const item of token.items) {
      if ('key' in item && item.key) stack.push([item.key, depth + 1]);
      if (item.value) stack.push([item.value, depth + 1]);
    }
  }
}

/** Offset of the first collection nested deeper than `maxDepth`. */
function findTooDeep(tokens: CST.Token[], maxDepth: number): number | undefined {
  for (const [token, depth] of nodeTokens(tokens, maxDepth)) {
    const collection = token.type === 'block-map' || token.type === 'block-seq' || token.type === 'flow-collection';
    if (collection && depth > maxDepth) return token.offset;
  }
  return undefined;
}

/**
 * Where to point for a syntax error, and what to say where yaml's words would mislead. The parser
 * reports where it noticed the problem; for a quote or a bracket never closed, the place to fix
 * is where it opened, and for a badly indented line, the first character after the indentation.
 */
function syntaxPlace(
  text: string,
  tokens: CST.Token[],
  error: { code: string; message: string; pos: [number, number] },
): { offset: number; message?: string } {
  const at = error.pos[0];
  const unclosedQuote = error.code === 'MISSING_CHAR' && /quote/i.test(error.message);
  const unclosedFlow = /end with a [\]}]/.test(error.message);
  if (unclosedQuote || unclosedFlow) {
    let best: number | undefined;
    for (const [token] of nodeTokens(tokens)) {
      if (token.offset > at) continue;
      const open = unclosedQuote ? isUnclosedQuote(token) : isUnclosedFlow(token);
      if (open && (best === undefined || token.offset > best)) best = token.offset;
    }
    if (best !== undefined) return { offset: best };
  }
  if (error.code === 'BLOCK_AS_IMPLICIT_KEY' || error.code === 'MULTILINE_IMPLICIT_KEY') {
    const key = overIndentedKey(text, tokens, at);
    if (key !== undefined) return { offset: key, message: OVER_INDENTED };
  }
  return { offset: firstOnLine(text, at) ?? at };
}

const OVER_INDENTED =
  'This line is indented deeper than the line above it, so YAML reads it as part of the value there: indent a key as its siblings are.';

/**
 * A key indented deeper than its siblings continues the scalar before it ("provider: claude" then
 * "    mode: plan" reads as the key "claude mode"), and yaml reports that scalar's start, on the
 * line above. The mistake is the line the key ends on, where its ':' is: its first character.
 */
function overIndentedKey(text: string, tokens: CST.Token[], at: number): number | undefined {
  for (const [token] of nodeTokens(tokens)) {
    if (token.offset !== at || !('source' in token) || typeof token.source !== 'string') continue;
    const end = token.offset + token.source.length;
    const lastLine = text.lastIndexOf('\n', end - 1) + 1;
    if (lastLine <= at) return undefined;
    const key = firstOnLine(text, lastLine);
    const firstLine = text.lastIndexOf('\n', at - 1) + 1;
    const indent = (line: number) => (firstOnLine(text, line) ?? line) - line;
    return key !== undefined && key - lastLine > indent(firstLine) ? key : undefined;
  }
  return undefined;
}

/** The first character other than a space from `offset` on, if the line has one. */
function firstOnLine(text: string, offset: number): number | undefined {
  while (offset < text.length && text[offset] === ' ') offset++;
  return offset < text.length && text[offset] !== '\n' && text[offset] !== '\r' ? offset : undefined;
}

function isUnclosedQuote(token: CST.Token): boolean {
  if (token.type === 'double-quoted-scalar')
    return token.source.length < 2 || !/(?:^|[^\\])(?:\\\\)*"$/.test(token.source);
  if (token.type === 'single-quoted-scalar') return token.source.length < 2 || !token.source.endsWith("'");
  return false;
}

function isUnclosedFlow(token: CST.Token): boolean {
  if (token.type !== 'flow-collection') return false;
  const close = token.start.source === '[' ? ']' : '}';
  return !token.end.some((end) => end.source === close);
}
