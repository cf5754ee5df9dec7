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
import { joinPointer } from '../issues/issue.js';
import type { Limits } from '../limits/limits.js';
import { SourceText, stripBom } from './text.js';

/** A parsed YAML document, its plain value, and what positions need. */
export interface ParsedDocument {
  file: string | undefined;
  source: SourceText;
  doc: Document.Parsed;
  value: unknown;
  /** The node each alias stands for, as the walk resolved it. */
  aliases: Map<Alias, Node>;
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
 * Parses one YAML file under DECISIONS.md's policy. Returns undefined when the document is
 * unusable (syntax errors or a resource limit); the reasons are in `issues`.
 */
export function parseYaml(
  input: string,
  file: string | undefined,
  limits: Limits,
  issues: IssueCollector,
): ParsedDocument | undefined {
  const source = new SourceText(stripBom(input));
  const where = (offset: number) => ({ file, source, offset });
  const tokens = Array.from(new Parser().parse(source.text));

  const tooDeep = findTooDeep(tokens, limits.maxDepth);
  if (tooDeep !== undefined) {
    issues.add('limit.depth', `The YAML nests deeper than ${limits.maxDepth} levels.`, '', where(tooDeep));
    return undefined;
  }

  const docs: Document.Parsed[] = [];
  const composer = new Composer(composerOptions);
  for (const token of tokens) docs.push(...composer.next(token));
  docs.push(...composer.end());
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
  if (doc.errors.length > 0) {
    for (const error of doc.errors) {
      issues.add('yaml.syntax', firstLine(error.message), '', where(error.pos[0]));
    }
    return undefined;
  }
  const walker = new Walker(doc, limits, issues, where);
  try {
    const value = walker.toValue(doc.contents, '', 1, false);
    return { file, source, doc, value, aliases: walker.aliases };
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

/** Offset of the first collection nested deeper than `maxDepth`, found without recursion. */
function findTooDeep(tokens: CST.Token[], maxDepth: number): number | undefined {
  const stack: [CST.Token, number][] = [];
  for (const token of tokens) if (token.type === 'document' && token.value) stack.push([token.value, 1]);
  while (stack.length > 0) {
    const [token, depth] = stack.pop() as [CST.Token, number];
    if (token.type !== 'block-map' && token.type !== 'block-seq' && token.type !== 'flow-collection') continue;
    if (depth > maxDepth) return token.offset;
    for (const item of token.items) {
      if ('key' in item && item.key) stack.push([item.key, depth + 1]);
      if (item.value) stack.push([item.value, depth + 1]);
    }
  }
  return undefined;
}

type WhereAt = (offset: number) => { file: string | undefined; source: SourceText; offset: number };

/** Turns the AST into plain data, enforcing the YAML policy on the way. */
class Walker {
  readonly aliases = new Map<Alias, Node>();
  // Anchors in document order, so that an alias finds the latest definition before it.
  // (yaml's Alias.resolve searches the whole document each time: quadratic on alias-heavy input.)
  private readonly anchors = new Map<string, Node>();
  private expanded = 0;

  constructor(
    private readonly doc: Document.Parsed,
    private readonly limits: Limits,
    private readonly issues: IssueCollector,
    private readonly where: WhereAt,
  ) {}

  toValue(node: ParsedNode | Node | null, pointer: string, depth: number, viaAlias: boolean): unknown {
    if (node === null) return null;
    if (viaAlias && ++this.expanded > this.limits.maxAliasExpansion) {
      this.issues.add(
        'limit.alias_expansion',
        `Aliases expand to more than ${this.limits.maxAliasExpansion} nodes; is this an alias bomb?`,
        pointer,
        this.where(offsetOf(node)),
      );
      throw new Abort();
    }
    if (isAlias(node)) {
      const target = this.aliases.get(node) ?? this.anchors.get(node.source);
      if (target === undefined) {
        this.fail('yaml.unknown_alias', `The alias *${node.source} names no anchor defined before it.`, pointer, node);
        return null;
      }
      this.aliases.set(node, target);
      return this.toValue(target, pointer, depth, true);
    }
    if (!viaAlias && node.anchor !== undefined) this.anchors.set(node.anchor, node);
    if (!viaAlias && node.tag !== undefined && !coreTags.has(node.tag)) {
      this.fail('yaml.tag', `The tag ${node.tag} is not allowed; only the YAML 1.2 core schema's are.`, pointer, node);
    }
    if (isScalar(node)) return node.value;
    if (depth > this.limits.maxDepth) {
      this.issues.add('limit.depth', `The YAML nests deeper than ${this.limits.maxDepth} levels.`, pointer, this.where(offsetOf(node)));
      throw new Abort();
    }
    if (isSeq(node)) {
      return node.items.map((item, index) => this.toValue(item as Node, joinPointer(pointer, index), depth + 1, viaAlias));
    }
    if (isMap(node)) return this.mapToValue(node.items, pointer, depth, viaAlias);
    return null;
  }

  private mapToValue(
    pairs: { key: unknown; value: unknown }[],
    pointer: string,
    depth: number,
    viaAlias: boolean,
  ): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const seen = viaAlias ? undefined : new Map<string, Node>();
    for (const pair of pairs) {
      const keyNode = pair.key as Node | null;
      if (!viaAlias && keyNode !== null && !isAlias(keyNode) && keyNode.anchor !== undefined) this.anchors.set(keyNode.anchor, keyNode);
      const key = isScalar(keyNode) && typeof keyNode.value === 'string' ? keyNode.value : undefined;
      if (key === undefined) {
        if (!viaAlias) {
          this.fail('yaml.non_string_key', `Mapping keys must be plain strings; this one is ${describeKey(keyNode)}.`, pointer, keyNode);
        }
        continue;
      }
      const childPointer = joinPointer(pointer, key);
      if (seen !== undefined && keyNode !== null) {
        if (key === '<<' && isScalar(keyNode) && keyNode.type === 'PLAIN') {
          this.fail('yaml.merge_key', 'Merge keys (<<) are not allowed; write the keys out or use an alias for the whole value.', childPointer, keyNode);
        }
        const first = seen.get(key);
        if (first !== undefined) {
          const { line, column } = this.where(offsetOf(first)).source.position(offsetOf(first));
          this.fail('yaml.duplicate_key', `The key "${key}" is already defined at line ${line}, column ${column}.`, childPointer, keyNode);
        } else seen.set(key, keyNode);
      }
      const value = this.toValue(pair.value as Node | null, childPointer, depth + 1, viaAlias);
      if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
      else out[key] = value;
    }
    return out;
  }

  private fail(code: Parameters<IssueCollector['add']>[0], message: string, pointer: string, node: Node | null): void {
    this.issues.add(code, message, pointer, this.where(node === null ? 0 : offsetOf(node)));
  }
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
