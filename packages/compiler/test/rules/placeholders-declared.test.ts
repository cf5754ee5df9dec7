import { describe, expect, it } from 'vitest';
import { compileConfiguration } from '../../src/index.js';
import { configurationWith, found } from '../support/documents.js';

const withText = (text: string) =>
  configurationWith({ on: '{ manual.run: { inputs: { branch: {} } } }' }).replace(
    '"Fix it. {{ prompt }}"',
    JSON.stringify(text),
  );

describe('placeholdersDeclared', () => {
  it.each([
    '{{ prompt }}',
    '{{prompt}}',
    '{{ inputs.branch }}',
    '{{#each x}} is not a placeholder',
    'plain { braces }',
  ])('accepts %j', (text) => {
    expect(found(withText(text))).toEqual([]);
  });

  it.each(['{{ inputs.brnch }}', '{{ input.branch }}', '{{ secrets.token }}', '{{ Prompt }}'])('reports %j', (text) => {
    expect(found(withText(text))).toEqual([['template.unknown_placeholder', '/triggers/0/steps/0/prompt/0/text']]);
  });

  it('points at the placeholder inside the text, not at the start of the string', () => {
    const result = compileConfiguration({ yaml: withText('Fix {{ inputs.brnch }} now') });
    expect(result.ok ? [] : result.issues.map((issue) => [issue.line, issue.column])).toEqual([[16, 24]]);
  });

  it('checks partials too, at their own positions', () => {
    const yaml = withText('{{ prompt }}').replace(
      '          - text: "{{ prompt }}"',
      '          - text: "{{ prompt }}"\n          - include: p.md',
    );
    const result = compileConfiguration({ yaml, partials: [{ path: 'p.md', content: 'line one\n  {{ nope }}\n' }] });
    expect(result.ok ? [] : result.issues).toEqual([
      expect.objectContaining({
        code: 'template.unknown_placeholder',
        file: 'p.md',
        pointer: '/partials/0/content',
        line: 2,
        column: 3,
      }),
    ]);
  });

  describe('event placeholders', () => {
    const withEvent = (on: string, text: string) =>
      configurationWith({ on }).replace('"Fix it. {{ prompt }}"', JSON.stringify(text));
    const schedule = '{ schedule: [{ cron: "0 2 * * *" }] }';

    it('accepts {{ event.scheduled_at }} on a schedule-only trigger', () => {
      expect(found(withEvent(schedule, 'As of {{ event.scheduled_at }}'))).toEqual([]);
    });

    it.each([
      ['a manual.run trigger', '{ manual.run: {} }'],
      ['a trigger with both kinds', '{ manual.run: {}, schedule: [{ cron: "0 2 * * *" }] }'],
    ])('reports it on %s, naming manual.run', (_case, on) => {
      const result = compileConfiguration({ yaml: withEvent(on, 'As of {{ event.scheduled_at }}') });
      expect(result.ok ? [] : result.issues).toEqual([
        expect.objectContaining({
          code: 'template.unknown_placeholder',
          message:
            'The placeholder {{ event.scheduled_at }} has no value in manual.run runs: only schedule runs give it.',
          line: 16,
          column: 26,
        }),
      ]);
    });

    it('suggests the event name a schedule gives for a misspelling', () => {
      const result = compileConfiguration({ yaml: withEvent(schedule, '{{ event.scheduled }}') });
      expect(result.ok ? [] : result.issues.map((issue) => issue.suggestion)).toEqual(['event.scheduled_at']);
    });
  });
});
