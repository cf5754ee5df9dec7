// The prompt `include` values of a document, so that discovery sends exactly the partials that
// are referenced. Where includes may stand is the documents' shape (DECISIONS.md, The YAML
// documents); everything else about them (paths, existence) the compiler and the hub judge.
import { isAlias, isMap, isNode, isScalar, isSeq, parseDocument, visit, type Alias, type Node } from 'yaml';

/** configuration: `triggers[].steps[].prompt[].include`; workflow (legacy): `steps[].prompt[].include`. */
export type IncludeShape = 'configuration' | 'workflow';

/**
 * The string `include` values of `yaml`'s prompts, in document order, without repeats. A document
 * that does not parse yields what could be read of it: the compiler reports the rest.
 */
export function includesOf(yaml: string, shape: IncludeShape): string[] {
  const doc = parseDocument(yaml, { version: '1.2', schema: 'core', uniqueKeys: false, merge: false });
  // Aliases may share collections: each one is walked once, so an alias bomb costs its size only.
  const seen = new Set<unknown>();
  // Alias.resolve searches the document each time: the targets are found in one pass instead
  // (an anchor applies to the aliases after it, up to its next definition).
  const anchors = new Map<string, Node>();
  const targets = new Map<Alias, Node | undefined>();
  visit(doc, (_key, node) => {
    if (isAlias(node)) targets.set(node, anchors.get(node.source));
    else if (isNode(node) && node.anchor) anchors.set(node.anchor, node);
  });
  const resolve = (node: unknown): unknown => (isAlias(node) ? targets.get(node) : node);
  const items = (node: unknown): unknown[] => {
    const list = resolve(node);
    if (!isSeq(list) || seen.has(list)) return [];
    seen.add(list);
    return list.items.map(resolve);
  };
  const get = (node: unknown, key: string): unknown => {
    const map = resolve(node);
    if (!isMap(map)) return undefined;
    const pair = map.items.find((item) => isScalar(item.key) && item.key.value === key);
    return resolve(pair?.value);
  };

  const steps = shape === 'configuration' ? items(get(doc.contents, 'triggers')).flatMap((trigger) => items(get(trigger, 'steps'))) : items(get(doc.contents, 'steps'));
  const found = new Set<string>();
  for (const step of steps) {
    for (const item of items(get(step, 'prompt'))) {
      const include = get(item, 'include');
      if (isScalar(include) && typeof include.value === 'string') found.add(include.value);
    }
  }
  return [...found];
}
