import { isAlias, isMap, isPair, isScalar, isSeq, type Node, type Pair, type YAMLMap } from 'yaml';
import { splitPointer } from '../issues/issue.js';
import type { Where } from '../issues/collect.js';
import type { ParsedDocument } from './yaml.js';

/**
 * Where a pointer lands in a parsed document: the node itself, or with `key`, the mapping key
 * that holds it. A pointer that leaves the document stops at the deepest node it reaches.
 */
export function locate(parsed: ParsedDocument, pointer: string, options: { key?: boolean } = {}): Where {
  const target = locateNode(parsed, pointer, options);
  return { file: parsed.file, source: parsed.source, offset: target?.range?.[0] ?? 0 };
}

export function locateNode(parsed: ParsedDocument, pointer: string, options: { key?: boolean } = {}): Node | null {
  const { doc } = parsed;
  let node = doc.contents as Node | null;
  let keyNode: Node | null = null;
  for (const segment of splitPointer(pointer)) {
    while (isAlias(node)) node = parsed.aliases.get(node) ?? null;
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
  return options.key && keyNode !== null ? keyNode : node;
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
