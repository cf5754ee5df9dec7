import { describe, expect, it } from 'vitest';
import { compileBundle, compileConfiguration, type CompileOptions } from '../../src/index.js';
import { configurationWith, found, foundInBundle, legacyHub, legacyWorkflow } from '../support/documents.js';

const including = (path: string) =>
  configurationWith().replace(
    '          - text: "Fix it. {{ prompt }}"',
    `          - text: "Fix it. {{ prompt }}"\n          - include: ${JSON.stringify(path)}`,
  );

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
    expect(
      foundInBundle(legacyHub, { review: legacyWorkflow('review', steps('partials/r.md')) }, { 'r.md': 'x' }),
    ).toEqual([]);
    expect(foundInBundle(legacyHub, { review: legacyWorkflow('review', steps('r.md')) })).toEqual([
      ['include.outside_partials', '/steps/0/prompt/0/include', '.hub/workflows/review.yml'],
    ]);
  });

  describe('a missing partial', () => {
    const missing = (include: string, partials: { path: string; content: string }[], options?: CompileOptions) => {
      const result = compileConfiguration({ yaml: including(include), partials }, options);
      const issues = result.ok ? [] : result.issues.filter((issue) => issue.code === 'partial.missing');
      expect(issues.map((issue) => [issue.pointer, issue.line, issue.column])).toEqual([
        ['/triggers/0/steps/0/prompt/1/include', 17, 22],
      ]);
      return issues[0]?.message ?? '';
    };

    it('is named in .hub/partials/, not in "the request", which an offline check has not', () => {
      const message = missing('testin.md', []);
      expect(message).toContain('"testin.md" in .hub/partials/');
      expect(message).not.toMatch(/request|did you mean/);
    });

    it.each([
      ['a given partial', [{ path: 'testing.md', content: 'x' }], undefined],
      ['partialNames, the files that exist but were not given', [], { partialNames: ['notes.md', 'testing.md'] }],
      ['partialNames differing in case only', [], { partialNames: ['Testin.md'] }],
    ])('suggests %s', (_what, partials, options) => {
      const expected = options?.partialNames?.at(-1) ?? 'testing.md';
      expect(missing('testin.md', partials, options)).toContain(`did you mean "${expected}"?`);
    });

    it('ignores partialNames that are not strings, and suggests nothing far off', () => {
      const options = { partialNames: [42, null, 'deploy-checklist.md'] } as unknown as CompileOptions;
      expect(missing('testin.md', [], options)).not.toContain('did you mean');
    });

    it('in a legacy bundle, suggests among partialNames under .hub/workflows/partials/, as an include names it', () => {
      const workflow = legacyWorkflow(
        'review',
        `  - id: review
    environment: build
    agent: reviewer
    prompt:
      - include: partials/revew.md`,
      );
      const files = [
        { path: '.hub/hub.yml', content: legacyHub },
        { path: '.hub/workflows/review.yml', content: workflow },
      ];
      const result = compileBundle({ files }, { partialNames: ['.hub/workflows/partials/review.md'] });
      const issue = result.ok ? undefined : result.issues.find((entry) => entry.code === 'partial.missing');
      expect([issue?.pointer, issue?.file]).toEqual(['/steps/0/prompt/0/include', '.hub/workflows/review.yml']);
      expect(issue?.message).toContain('"partials/revew.md" in .hub/workflows/; did you mean "partials/review.md"?');
    });
  });
});
