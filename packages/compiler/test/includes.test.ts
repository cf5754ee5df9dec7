// promptIncludes against a reading of its own: yaml's composed Document, walked as the CLI read
// includes before (aliases resolved, each list once). On every document yaml reads without an
// error the two must agree, in order; one that does not parse has no includes.
import fc from 'fast-check';
import { isAlias, isMap, isNode, isScalar, isSeq, parseDocument, visit, type Alias, type Node } from 'yaml';
import { describe, expect, it } from 'vitest';
import { loadFixtures } from '../../../test-fixtures/load.js';
import { promptIncludes, type IncludeShape } from '../src/index.js';

/** The reference: yaml's own Document, or undefined when yaml reports an error. */
function composedIncludes(yaml: string, shape: IncludeShape): string[] | undefined {
  const doc = parseDocument(yaml, { version: '1.2', schema: 'core', uniqueKeys: false, merge: false });
  if (doc.errors.length > 0) return undefined;
  const anchors = new Map<string, Node>();
  const targets = new Map<Alias, Node | undefined>();
  visit(doc, (_key, node) => {
    if (isAlias(node)) targets.set(node, anchors.get(node.source));
    else if (isNode(node) && node.anchor) anchors.set(node.anchor, node);
  });
  const resolve = (node: unknown): unknown => (isAlias(node) ? targets.get(node) : node);
  const seen = new Set<unknown>();
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
  const steps =
    shape === 'configuration'
      ? items(get(doc.contents, 'triggers')).flatMap((trigger) => items(get(trigger, 'steps')))
      : items(get(doc.contents, 'steps'));
  const found = new Set<string>();
  for (const step of steps) {
    for (const item of items(get(step, 'prompt'))) {
      const include = get(item, 'include');
      if (isScalar(include) && typeof include.value === 'string') found.add(include.value);
    }
  }
  return [...found];
}

const documents: [string, IncludeShape, string][] = [];
for (const fixture of loadFixtures()) {
  if (fixture.kind === 'configuration' && fixture.yaml !== undefined)
    documents.push([fixture.id, 'configuration', fixture.yaml]);
  if (fixture.kind === 'bundle') {
    for (const file of fixture.files)
      if (/^\.hub\/workflows\/[^/]+\.yml$/.test(file.path))
        documents.push([`${fixture.id} ${file.path}`, 'workflow', file.content]);
  }
}

describe('promptIncludes', () => {
  it('has golden documents of both shapes to compare', () => {
    expect(documents.filter(([, shape]) => shape === 'configuration').length).toBeGreaterThan(50);
    expect(documents.filter(([, shape]) => shape === 'workflow').length).toBeGreaterThan(10);
  });

  it.each(documents)('%s: the includes yaml’s own reading finds', (_, shape, yaml) => {
    const reference = composedIncludes(yaml, shape);
    if (reference === undefined) expect(promptIncludes(yaml, shape)).toEqual([]);
    else expect(promptIncludes(yaml, shape)).toEqual(reference);
  });

  it.each([
    [
      'shared steps through an alias, and a repeated include',
      'configuration',
      'triggers:\n  - name: a\n    steps: &s\n      - prompt: [{ include: x.md }, { include: x.md }, { include: "y.md" }]\n  - name: b\n    steps: *s\n',
      ['x.md', 'y.md'],
    ],
    [
      'a key written with an escape',
      'configuration',
      'triggers:\n  - steps:\n      - prompt:\n          - "\\x69nclude": esc.md\n',
      ['esc.md'],
    ],
    [
      'flow style and a non-string include',
      'workflow',
      '{ steps: [ { prompt: [ { include: a/b.md }, { include: 3 }, { text: hi } ] } ] }\n',
      ['a/b.md'],
    ],
    ['a syntax error', 'configuration', 'triggers: [\n  - steps:\n      - prompt:\n          - include: x.md\n', []],
    ['not a mapping', 'workflow', '- steps\n', []],
  ] as const)('%s', (_, shape, yaml, expected) => {
    expect(promptIncludes(yaml, shape)).toEqual(expected);
  });

  it('agrees with yaml on generated prompts, and never throws', () => {
    const scalar = fc.oneof(
      fc.constantFrom('x.md', 'a/b.md', '"q.md"', "'s.md'", '3', 'true', '~', '""', 'include'),
      fc.string({ maxLength: 6 }).map((text) => JSON.stringify(text)),
    );
    const item = fc.oneof(
      scalar.map((value) => `{ include: ${value} }`),
      scalar.map((value) => `{ text: ${value} }`),
      fc.tuple(scalar, scalar).map(([a, b]) => `{ include: ${a}, text: ${b} }`),
      scalar,
    );
    const step = fc.array(item, { maxLength: 4 }).map((items) => `      - prompt: [${items.join(', ')}]\n`);
    const trigger = fc
      .array(step, { maxLength: 3 })
      .map((steps) => `  - name: t\n    steps:\n${steps.join('') || '      []\n'}`);
    fc.assert(
      fc.property(fc.array(trigger, { maxLength: 3 }), (triggers) => {
        const yaml = `triggers:\n${triggers.join('') || '  []\n'}`;
        const reference = composedIncludes(yaml, 'configuration');
        expect(promptIncludes(yaml, 'configuration')).toEqual(reference ?? []);
      }),
      { numRuns: 300 },
    );
  });
});
