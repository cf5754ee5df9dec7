import {
  Composer,
  type Alias,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  Parser,
  type Document,
  type Node,
  type ParsedNode,
} from 'yaml';
import type { CST } from 'yaml';
import type { IssueCollector } from '../issues/collect.js';
import type { IssueCode } from '../issues/codes.js';
import { joinPointer } from '../issues/issue.js';
import type { Limits } from '../limits/limits.js';
import { readFast, unstorable, type FastDocument, type Locator } from './cst.js';
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

const coreTags = new Set(
  ['str', 'int', 'float', 'bool', 'null', 'map', 'seq'].map((name) => `tag:yaml.org,2002:${name}`),
);

const composerOptions = {
  version: '1.2',
  schema: 'core',
  merge: false,
  uniqueKeys: false,
  prettyErrors: false,
  keepSourceTokens: false,
} as const;

class Abort extends Error {}

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

/** Turns the AST into plain data, enforcing the YAML policy on the way. */
class Walker {
  readonly aliases = new Map<Alias, Node>();
  readonly flagged = new Set<string>();
  /** The path to the node being walked; a pointer string is built only for an issue. */
  private readonly path: (string | number)[] = [];
  /** The alias written in the document that the current expansion started from. */
  private outerAlias: { node: Alias; pointer: string } | undefined;
  // Anchors in document order, so that an alias finds the latest definition before it.
  // (yaml's Alias.resolve searches the whole document each time: quadratic on alias-heavy input.)
  private readonly anchors = new Map<string, Node>();
  private expanded = 0;
  /** Characters of strings produced through aliases: a long anchored text reused bounds them too. */
  private expandedChars = 0;

  constructor(
    private readonly doc: Document.Parsed,
    private readonly limits: Limits,
    private readonly issues: IssueCollector,
    private readonly source: SourceText,
    private readonly file: string | undefined,
  ) {}

  toValue(node: ParsedNode | Node | null, depth: number, viaAlias: boolean): unknown {
    if (node === null) return null;
    if (viaAlias && ++this.expanded > this.limits.maxAliasExpansion) {
      this.abort(
        'limit.alias_expansion',
        `Aliases expand to more than ${this.limits.maxAliasExpansion} nodes; is this an alias bomb?`,
        node,
      );
    }
    if (isAlias(node)) {
      const target = this.aliases.get(node) ?? this.anchors.get(node.source);
      if (target === undefined) {
        this.fail('yaml.unknown_alias', `The alias *${node.source} names no anchor defined before it.`, node);
        return null;
      }
      this.aliases.set(node, target);
      if (viaAlias) return this.toValue(target, depth, true);
      this.outerAlias = { node, pointer: this.pointer() };
      const value = this.toValue(target, depth, true);
      this.outerAlias = undefined;
      return value;
    }
    if (!viaAlias && node.anchor !== undefined) this.anchors.set(node.anchor, node);
    if (!viaAlias && node.tag !== undefined && !coreTags.has(node.tag)) {
      const tag = node.tag.replace(/^tag:yaml\.org,2002:/, '!!');
      this.fail(
        'yaml.tag',
        `The tag ${tag} is not allowed; only the YAML 1.2 core schema's tags are.`,
        node,
        tagOffset(this.source.text, offsetOf(node)),
      );
    }
    if (isScalar(node)) {
      if (viaAlias && typeof node.value === 'string') {
        this.expandedChars += node.value.length;
        if (this.expandedChars > this.limits.maxYamlLength) {
          this.abort(
            'limit.alias_expansion',
            `Aliases expand to more than ${this.limits.maxYamlLength} characters of text; is this an alias bomb?`,
            node,
          );
        }
      } else if (typeof node.value === 'string') {
        for (const [code, message] of unstorable(node.value, 'value')) this.fail(code, message, node);
      }
      return node.value;
    }
    if (depth > this.limits.maxDepth) {
      this.abort('limit.depth', `The YAML nests deeper than ${this.limits.maxDepth} levels.`, node);
    }
    if (isSeq(node)) {
      const out: unknown[] = new Array(node.items.length);
      for (let index = 0; index < node.items.length; index++) {
        this.path.push(index);
        out[index] = this.toValue(node.items[index] as Node, depth + 1, viaAlias);
        this.path.pop();
      }
      return out;
    }
    if (isMap(node)) return this.mapToValue(node.items, depth, viaAlias);
    return null;
  }

  private mapToValue(
    pairs: { key: unknown; value: unknown }[],
    depth: number,
    viaAlias: boolean,
  ): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const seen = viaAlias ? undefined : new Map<string, Node>();
    for (const pair of pairs) {
      const keyNode = pair.key as Node | null;
      if (!viaAlias && keyNode !== null && !isAlias(keyNode) && keyNode.anchor !== undefined)
        this.anchors.set(keyNode.anchor, keyNode);
      const key = isScalar(keyNode) && typeof keyNode.value === 'string' ? keyNode.value : undefined;
      if (key === undefined) {
        if (!viaAlias)
          this.fail(
            'yaml.non_string_key',
            `Mapping keys must be plain strings; this one is ${describeKey(keyNode)}.`,
            keyNode,
          );
        this.skip(pair.value as Node | null, depth, viaAlias);
        continue;
      }
      const refused = unstorable(key, 'key');
      if (refused.length > 0) {
        // As a non-string key: reported at the mapping (no pointer holds the character), left out.
        if (!viaAlias) for (const [code, message] of refused) this.fail(code, message, keyNode);
        this.skip(pair.value as Node | null, depth, viaAlias);
        continue;
      }
      this.path.push(key);
      if (
        !viaAlias &&
        keyNode !== null &&
        !isAlias(keyNode) &&
        keyNode.tag !== undefined &&
        !coreTags.has(keyNode.tag)
      ) {
        this.fail(
          'yaml.tag',
          `The tag ${keyNode.tag.replace(/^tag:yaml\.org,2002:/, '!!')} is not allowed; only the YAML 1.2 core schema's tags are.`,
          keyNode,
          tagOffset(this.source.text, offsetOf(keyNode)),
        );
      }
      if (seen !== undefined && keyNode !== null && this.checkKey(key, keyNode, seen)) {
        this.skip(pair.value as Node | null, depth, viaAlias);
        this.path.pop();
        continue;
      }
      const value = this.toValue(pair.value as Node | null, depth + 1, viaAlias);
      this.path.pop();
      if (key === '__proto__')
        Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
      else out[key] = value;
    }
    return out;
  }

  /** Walks a value left out of the result, so that its anchors are known to the aliases after it. */
  private skip(node: Node | null, depth: number, viaAlias: boolean): void {
    if (node !== null && !viaAlias) this.toValue(node, depth + 1, false);
  }

  /** Reports a merge key or a duplicate; true when the pair is to be left out of the value. */
  private checkKey(key: string, keyNode: Node, seen: Map<string, Node>): boolean {
    if (key === '<<' && isScalar(keyNode) && keyNode.type === 'PLAIN') {
      this.fail(
        'yaml.merge_key',
        'Merge keys (<<) are not allowed; write the keys out or use an alias for the whole value.',
        keyNode,
      );
      return true;
    }
    const first = seen.get(key);
    if (first === undefined) {
      seen.set(key, keyNode);
      return false;
    }
    const { line, column } = this.source.position(offsetOf(first));
    this.fail('yaml.duplicate_key', `The key "${key}" is already defined at line ${line}, column ${column}.`, keyNode);
    return false;
  }

  private pointer(): string {
    return joinPointer('', ...this.path);
  }

  private fail(code: IssueCode, message: string, node: Node | null, offset = node === null ? 0 : offsetOf(node)): void {
    const pointer = this.pointer();
    this.flagged.add(pointer);
    this.issues.add(code, message, pointer, { file: this.file, source: this.source, offset });
  }

  /** A resource limit: reported at the alias written in the document, if inside an expansion. */
  private abort(code: 'limit.depth' | 'limit.alias_expansion', message: string, node: Node): never {
    const at = this.outerAlias ?? { node, pointer: this.pointer() };
    this.issues.add(code, message, at.pointer, { file: this.file, source: this.source, offset: offsetOf(at.node) });
    throw new Abort();
  }
}

/**
 * Where a node's tag is written: the AST keeps the value's position only, so look back over the
 * node's properties (a tag and an anchor, in either order) for the token that starts with "!".
 */
function tagOffset(text: string, valueStart: number): number {
  let end = valueStart;
  for (let token = 0; token < 2; token++) {
    while (end > 0 && /\s/.test(text[end - 1] as string)) end--;
    let start = end;
    while (start > 0 && !/[\s,[{]/.test(text[start - 1] as string)) start--;
    if (text[start] === '!') return start;
    if (text[start] !== '&') break;
    end = start;
  }
  return valueStart;
}

function offsetOf(node: Node): number {
  return node.range?.[0] ?? 0;
}

function describeKey(node: Node | null): string {
  if (node === null) return 'empty';
  if (isScalar(node)) return node.value === null ? 'null' : `a ${typeof node.value}`;
  if (isSeq(node)) return 'a list';
  if (isMap(node)) return 'a mapping';
  return 'an alias';
}
