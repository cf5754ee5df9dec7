import { describe, expect, it } from 'vitest';
import { configurationWith, found, foundInBundle, legacyHub, legacyWorkflow } from '../support/documents.js';

const including = (path: string) =>
  configurationWith().replace('          - text: "Fix it. {{ prompt }}"', `          - text: "Fix it. {{ prompt }}"\n          - include: ${JSON.stringify(path)}`);

describe('includesResolve', () => {
  it('matches an include with its partial', () => {
    expect(found(including('a/b.md'), [{ path: 'a/b.md', content: 'x' }])).toEqual([]);
  });

  it('reports a missing partial at the include, and an unused one at its entry (issues in the YAML first)', () => {
    expect(found(including('a.md'), [{ path: 'b.md', content: 'x' }])).toEqual([
      ['partial.missing', '/triggers/0/steps/0/prompt/1/include'],
      ['partial.extra', '/partials/0'],
    ]);
  });

  it('checks the include path itself', () => {
    expect(found(including('../a.md'))).toEqual([['path.unsafe', '/triggers/0/steps/0/prompt/1/include']]);
    expect(found(including('./a.md'))).toEqual([['path.noncanonical', '/triggers/0/steps/0/prompt/1/include']]);
  });

  it('resolves legacy includes relative to .hub/workflows/ and only into partials/', () => {
    const steps = (path: string) => `  - id: review
    environment: build
    agent: reviewer
    prompt:
      - include: ${path}`;
    expect(foundInBundle(legacyHub, { review: legacyWorkflow('review', steps('partials/r.md')) }, { 'r.md': 'x' })).toEqual([]);
    expect(foundInBundle(legacyHub, { review: legacyWorkflow('review', steps('r.md')) })).toEqual([
      ['include.outside_partials', '/steps/0/prompt/0/include', '.hub/workflows/review.yml'],
    ]);
  });
});
