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

    it.each([
      ['github.mention', '{ github.mention: {} }'],
      ['github.label', '{ github.label: { name: triage } }'],
      ['both GitHub kinds', '{ github.mention: {}, github.label: { name: triage } }'],
    ])('accepts every GitHub event value on a %s trigger', (_case, on) => {
      const text =
        '{{ event.repository }}#{{ event.number }} {{ event.title }} {{ event.url }} {{ event.kind }} {{ event.branch }}';
      expect(found(withEvent(on, text))).toEqual([]);
    });

    it.each([
      [
        'a GitHub value on a trigger with manual.run',
        '{ manual.run: {}, github.mention: {} }',
        '{{ event.url }}',
        'The placeholder {{ event.url }} has no value in manual.run runs: only github.mention and github.label runs give it.',
      ],
      [
        'a GitHub value on a trigger with a schedule',
        '{ github.label: { name: x }, schedule: [{ cron: "@daily" }] }',
        '{{ event.title }}',
        'The placeholder {{ event.title }} has no value in schedule runs: only github.mention and github.label runs give it.',
      ],
      [
        "a schedule's value on a GitHub trigger",
        '{ github.mention: {} }',
        '{{ event.scheduled_at }}',
        'The placeholder {{ event.scheduled_at }} has no value in github.mention runs: only schedule runs give it.',
      ],
    ])('reports %s, naming the kind that does not give it', (_case, on, text, message) => {
      const result = compileConfiguration({ yaml: withEvent(on, text) });
      expect(result.ok ? [] : result.issues.map((issue) => [issue.code, issue.message])).toEqual([
        ['template.unknown_placeholder', message],
      ]);
    });

    it('suggests a GitHub event name for a misspelling, and lists them', () => {
      const result = compileConfiguration({ yaml: withEvent('{ github.label: { name: x } }', '{{ event.titel }}') });
      expect(result.ok ? [] : result.issues.map(({ suggestion, message }) => ({ suggestion, message }))).toEqual([
        {
          suggestion: 'event.title',
          message:
            'Unknown placeholder {{ event.titel }}; did you mean "event.title"? Placeholders here: {{ prompt }}, ' +
            '{{ event.repository }}, {{ event.number }}, {{ event.title }}, {{ event.url }}, {{ event.kind }} and ' +
            '{{ event.branch }} (this trigger declares no inputs).',
        },
      ]);
    });

    it('accepts the inputs a github.mention trigger declares', () => {
      const on = '{ github.mention: { inputs: { area: {} } } }';
      expect(found(withEvent(on, '{{ inputs.area }} {{ event.number }}'))).toEqual([]);
      expect(found(withEvent(on, '{{ inputs.aera }}'))).toEqual([
        ['template.unknown_placeholder', '/triggers/0/steps/0/prompt/0/text'],
      ]);
    });

    it('suggests the event name a schedule gives for a misspelling', () => {
      const result = compileConfiguration({ yaml: withEvent(schedule, '{{ event.scheduled }}') });
      expect(result.ok ? [] : result.issues.map((issue) => issue.suggestion)).toEqual(['event.scheduled_at']);
    });
  });
});
