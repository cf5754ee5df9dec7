// The general reading's walk (composeYaml, yaml.ts): a Document that yaml composed, turned into
// plain data under DECISIONS.md's YAML policy (core tags only, no merge keys, aliases bounded).
import { isAlias, isMap, isScalar, isSeq, type Alias, type Node, type ParsedNode, type Document } from 'yaml';
import type { IssueCollector } from '../issues/collect.js';
import type { IssueCode } from '../issues/codes.js';
import { joinPointer } from '../issues/issue.js';
import type { Limits } from '../limits/limits.js';
import type { SourceText } from './text.js';
import { unstorable } from './walk.js';

const coreTags = new Set(
  ['str', 'int', 'float', 'bool', 'null', 'map', 'seq'].map((name) => `tag:yaml.org,2002:${name}`),
);

/** Thrown by the walk when the document is unusable: its issue is already added. */
export class Abort extends Error {}

/** Turns the AST into plain data, enforcing the YAML policy on the way. */
export class Walker {
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
