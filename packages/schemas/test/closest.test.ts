import { describe, expect, it } from 'vitest';
import { closest, editDistance } from '../src/index.js';

describe('closest', () => {
  it.each([
    // input, candidates, expected
    ['stpes', ['steps', 'name'], 'steps'],
    ['deamon', ['daemon', 'local'], 'daemon'],
    ['dryrun', ['dry-run', 'help'], 'dry-run'],
    ['Steps', ['steps', 'stops'], 'steps'], // a difference of case only is closest of all
    ['STEPS', ['stops', 'steps'], 'steps'],
    ['a', ['b'], 'b'], // at least one edit is allowed
    ['ab', ['cd'], undefined],
    ['trigger', ['triggers', 'partials', 'workflows'], 'triggers'],
    ['abcdefghij', ['abcdevwxyz'], undefined], // five edits of ten characters is too many
    ['abcdefghij', ['abcdefwxyz'], 'abcdefwxyz'], // four is not
    ['steps', ['steps'], undefined], // the input itself is no misspelling of it
    ['steps', ['stepz', 'stpes'], 'stepz'], // the first of equally close ones
    ['x'.repeat(65), ['x'.repeat(64)], undefined], // longer inputs are not compared
    ['x'.repeat(64), ['x'.repeat(65)], undefined], // nor longer candidates
    ['zzz', [], undefined],
  ])('%j among %j is %j', (input, candidates, expected) => {
    expect(closest(input, candidates)).toBe(expected);
  });

  it('compares the first 200 candidates only', () => {
    const others = Array.from({ length: 200 }, (_, i) => `unrelated-${i}`);
    expect(closest('steps', [...others, 'stpes'])).toBeUndefined();
    expect(closest('steps', [...others.slice(1), 'stpes'])).toBe('stpes');
  });

  it('takes any iterable', () => {
    expect(closest('stpes', new Set(['steps']))).toBe('steps');
  });
});

describe('editDistance', () => {
  it.each([
    ['', '', Infinity, 0],
    ['abc', '', Infinity, 3],
    ['kitten', 'sitting', Infinity, 3],
    ['ab', 'ba', Infinity, 1], // a swap of neighbours is one edit
    ['ca', 'abc', Infinity, 3], // optimal string alignment, not Damerau-Levenshtein
    ['abcdef', 'uvwxyz', 2, 3], // above the cap: cap + 1
    ['a', 'abcd', 1, 2],
  ])('%j to %j (cap %d) is %d', (a, b, cap, expected) => {
    expect(editDistance(a, b, cap)).toBe(expected);
  });
});
