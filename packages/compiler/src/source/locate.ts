import { isAlias, isMap, isPair, isScalar, isSeq, type Node } from 'yaml';
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
      const pair = node.items.find((item) => isPair(item) && isScalar(item.key) && item.key.value === segment);
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
