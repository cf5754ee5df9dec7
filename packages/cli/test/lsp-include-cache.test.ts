// The language server keeps a document's includes across an edit that cannot change them
// (src/lsp/include-cache.ts): never wrongly, checked against includes.ts on random edits of real
// documents; and for the keystrokes it is for.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadFixtures } from '../../../test-fixtures/load.js';
import { includesOf } from '../src/includes.js';
import { IncludeCache, keepsIncludes } from '../src/lsp/include-cache.js';
import { configurationYaml, workflowYaml } from './support/documents.js';

/** A configuration of `count` triggers, each like configurationYaml's, some including a partial. */
function manyTriggers(count: number): string {
  const base = configurationYaml(['testing.md']);
  const trigger = base.slice(base.indexOf('  - name: fix-tests'));
  const triggers = Array.from({ length: count }, (_, i) =>
    trigger
      .replace('fix-tests', `fix-${i}`)
      .replace('include: testing.md', i % 3 === 0 ? 'include: testing.md' : 'text: Plain words here'),
  );
  return base.slice(0, base.indexOf('  - name: fix-tests')) + triggers.join('');
}

/** Documents as people write them, where most keystrokes are ones the cache keeps. */
const written = [
  manyTriggers(20),
  configurationYaml(['testing.md', 'a/b.md']),
  workflowYaml('review', ['partials/x.md']),
  `triggers:\n  - steps:\n      - prompt:\n          - include: a.md\n          - text: x\n`,
  `triggers:\n  - steps:\n      - prompt: &p\n          - { include: a.md }\n          - include:\n              b.md\n`,
  `x: &a a.md\ntriggers:\n  - steps:\n      - prompt:\n          - include: *a\n          - text: "say include: this"\n`,
];
/** Every golden case's documents: odd ones, for soundness. */
const golden = loadFixtures()
  .flatMap((fixture) => [fixture.yaml ?? '', ...fixture.files.map((file) => file.content)])
  .filter((text) => text.length < 20_000);

/** One edit: anywhere in the text, delete some characters and type others (often harmless ones, sometimes YAML's). */
const edit = (documents: string[]) =>
  fc.record({
    doc: fc.noBias(fc.nat({ max: documents.length - 1 })),
    at: fc.noBias(fc.nat({ max: 1_000_000 })),
    remove: fc.nat({ max: 3 }),
    typed: fc.oneof(
      { weight: 4, arbitrary: fc.string({ unit: fc.constantFrom(...'abcz09_.- '.split('')), maxLength: 3 }) },
      { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom(...'ab :#&*|>"\'{}[]\n-?'.split('')), maxLength: 3 }) },
    ),
  });

describe('keeping the includes across an edit', () => {
  it.each([
    ['documents as written', written, 100],
    ['the golden cases’ documents', golden, 0],
  ])('only when includes.ts finds the same includes after it (both shapes): %s', (_, documents, least) => {
    let kept = 0;
    fc.assert(
      fc.property(edit(documents), ({ doc, at, remove, typed }) => {
        const before = documents[doc] ?? '';
        const start = at % (before.length + 1);
        const after = before.slice(0, start) + typed + before.slice(start + remove);
        if (!keepsIncludes(before, after)) return;
        kept += 1;
        expect(includesOf(after, 'configuration')).toEqual(includesOf(before, 'configuration'));
        expect(includesOf(after, 'workflow')).toEqual(includesOf(before, 'workflow'));
      }),
      // Enough runs that the kept ones are far above `least` whatever the seed (3,000 once kept 86).
      { numRuns: 8000 },
    );
    // Not vacuous: of documents as written, many random edits are ones it keeps.
    expect(kept).toBeGreaterThanOrEqual(least);
  });

  it.each([
    ['a letter in an environment name', 'environment: laptop', 'environment: lapto', true],
    ['a word in a plain prompt text', 'text: Fix the failing tests', 'text: Fix the tests', true],
    ['an include path', 'include: testing.md', 'include: testin.md', false],
    ['a key', 'environment: laptop', 'environmen: laptop', false],
    ['a value emptied (the lines below may become its value)', 'daemon: dev-box', 'daemon: ', false],
  ])('%s: %s', (_, from, to, keeps) => {
    const before = configurationYaml(['testing.md']).replace(
      'environment: laptop',
      'environment: laptop\n        note: Fix the failing tests',
    );
    const text = from.startsWith('text:')
      ? before.replace('note: Fix the failing tests', 'text: Fix the failing tests')
      : before;
    expect(text).toContain(from);
    expect(keepsIncludes(text, text.replace(from, to))).toBe(keeps);
  });

  it('answers from the last text of the same key, and parses when it cannot', () => {
    const cache = new IncludeCache();
    const text = configurationYaml(['testing.md']);
    expect(cache.get('c', text, 'configuration')).toEqual(['testing.md']);
    expect(cache.get('c', text.replace('environment: laptop', 'environment: lap'), 'configuration')).toEqual([
      'testing.md',
    ]);
    expect(cache.get('c', text.replace('include: testing.md', 'include: other.md'), 'configuration')).toEqual([
      'other.md',
    ]);
  });
});
