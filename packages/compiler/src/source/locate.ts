import {
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  type Alias,
  type Document,
  type Node,
  type Pair,
  type YAMLMap,
} from 'yaml';
import { splitPointer } from '../issues/issue.js';
import type { Where } from '../issues/collect.js';
import type { Locator, NodeSpan } from './cst.js';
import type { ParsedDocument } from './yaml.js';

/**
 * Where a pointer lands in a parsed document: the node itself, or with `key`, the mapping key
 * that holds it. A pointer that leaves the document stops at the deepest node it reaches.
 */
export function locate(parsed: ParsedDocument, pointer: string, options: { key?: boolean } = {}): Where {
  const span = parsed.locator.find(pointer, options.key === true);
  return { file: parsed.file, source: parsed.source, offset: span?.start ?? 0 };
}

/** The node's start and, for a scalar, the end of its written value. */
export function locateSpan(parsed: ParsedDocument, pointer: string): NodeSpan | null {
  return parsed.locator.find(pointer, false);
}

/** Pointers into a composed Document, aliases followed as the walk resolved them. */
export class DocumentLocator implements Locator {
  constructor(
    private readonly doc: Document.Parsed,
    private readonly aliases: Map<Alias, Node>,
  ) {}

  find(pointer: string, key: boolean): NodeSpan | null {
    const [node, isKey] = this.node(pointer, key);
    if (node === null) return null;
    const range = node.range;
    if (isKey) return { start: range?.[0] ?? 0 };
    return { start: range?.[0] ?? 0, end: isScalar(node) && range ? range[1] : undefined };
  }

  private node(pointer: string, key: boolean): [Node | null, boolean] {
    let node = this.doc.contents as Node | null;
    let keyNode: Node | null = null;
    for (const segment of splitPointer(pointer)) {
      while (isAlias(node)) node = this.aliases.get(node) ?? null;
      let next: Node | null | undefined;
      keyNode = null;
      if (isMap(node)) {
        const pair = pairsOf(node).get(segment);
        if (pair !== undefined) {
          keyNode = pair.key as Node;
          next = (pair.value as Node | null) ?? keyNode;
        }
      } else if (isSeq(node) && /^\d+$/.test(segment)) {
        next = node.items[Number(segment)] as Node | undefined;
      }
      if (next === undefined || next === null) break;
      node = next;
    }
    return key && keyNode !== null ? [keyNode, true] : [node, false];
  }
}

// Each mapping's pairs by key, built on its first look-up: issues in a mapping of many keys
// must not each scan it. The first pair of a key wins, as positions of duplicates are explicit.
const pairIndex = new WeakMap<YAMLMap, Map<string, Pair>>();

function pairsOf(map: YAMLMap): Map<string, Pair> {
  let index = pairIndex.get(map);
  if (index === undefined) {
    index = new Map();
    for (const item of map.items) {
      if (isPair(item) && isScalar(item.key) && typeof item.key.value === 'string' && !index.has(item.key.value)) {
        index.set(item.key.value, item as Pair);
      }
    }
    pairIndex.set(map, index);
  }
  return index;
}

/**
 * Where the character `index` of a string scalar's value is written: the scalar's source is
 * searched only where it reads as its value (plain, or quoted without escapes); elsewhere (a
 * block scalar, an escape, a folded line) the scalar's start stands in for it.
 */
export function locateInside(parsed: ParsedDocument, pointer: string, value: string, index: number): Where {
  const span = locateSpan(parsed, pointer);
  const where = { file: parsed.file, source: parsed.source, offset: span?.start ?? 0 };
  if (span?.end === undefined) return where;
  const written = parsed.source.text.slice(span.start, span.end);
  if (written === value) return { ...where, offset: span.start + index };
  const quote = written[0];
  const quoted = (quote === '"' || quote === "'") && written.length >= 2 && written.at(-1) === quote;
  if (quoted && written.slice(1, -1) === value) return { ...where, offset: span.start + 1 + index };
  return where;
}
