import { describe, expect, it } from 'vitest';
import { parseManualInput, renderPrompt, type DeclaredInput } from '../src/index.js';

const declared: DeclaredInput[] = [
  { name: 'branch', required: false, default: 'main' },
  { name: 'level', required: false, enum: ['low', 'high'] },
  { name: 'ticket', required: false },
];

describe('parseManualInput', () => {
  it.each([
    ['', { branch: 'main' }, ''],
    ['fix the flaky test', { branch: 'main' }, 'fix the flaky test'],
    ['branch=dev fix it', { branch: 'dev' }, 'fix it'],
    ['  branch=dev   level=high   fix it  ', { branch: 'dev', level: 'high' }, 'fix it'],
    ['branch="release 2" go', { branch: 'release 2' }, 'go'],
    ['branch="say \\"hi\\"" go', { branch: 'say "hi"' }, 'go'],
    ['branch= go', { branch: '' }, 'go'],
    ['branch=a branch=b go', { branch: 'b' }, 'go'],
    ['please branch=dev', { branch: 'main' }, 'please branch=dev'],
    ['unknown=1 branch=dev', { branch: 'main' }, 'unknown=1 branch=dev'],
    ['branch="unterminated go', { branch: 'main' }, 'branch="unterminated go'],
    ['branch="a"b go', { branch: 'main' }, 'branch="a"b go'],
    ['Branch=dev', { branch: 'main' }, 'Branch=dev'],
    ['branch=dev\nmultiline\nprompt', { branch: 'dev' }, 'multiline\nprompt'],
    ['ticket=X-1', { branch: 'main', ticket: 'X-1' }, ''],
  ])('%j', (input, inputs, prompt) => {
    expect(parseManualInput(input, declared)).toEqual({ ok: true, inputs, prompt });
  });

  it('refuses a missing required input', () => {
    const result = parseManualInput('just a prompt', [{ name: 'pr', required: true }]);
    expect(result).toMatchObject({ ok: false, issues: [{ code: 'input.required', pointer: '/input' }] });
  });

  it('lets a default satisfy a required input', () => {
    expect(parseManualInput('', [{ name: 'pr', required: true, default: '1' }])).toEqual({
      ok: true,
      inputs: { pr: '1' },
      prompt: '',
    });
  });

  it('refuses a value outside the enum, and reports every problem at once', () => {
    const result = parseManualInput('level=medium go', [...declared, { name: 'pr', required: true }]);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.issues.map((issue) => issue.code)).toEqual(['input.not_in_enum', 'input.required']);
  });

  it('treats a missing input text as empty', () => {
    expect(parseManualInput(undefined, declared)).toEqual({ ok: true, inputs: { branch: 'main' }, prompt: '' });
  });
});

describe('renderPrompt', () => {
  it('fills {{ prompt }} and {{ inputs.name }}, with or without spaces', () => {
    expect(
      renderPrompt('Fix {{ inputs.branch }}: {{prompt}}', { prompt: 'the tests', inputs: { branch: 'dev' } }),
    ).toBe('Fix dev: the tests');
  });

  it('renders an input without a value as empty', () => {
    expect(renderPrompt('[{{ inputs.ticket }}]', { prompt: '', inputs: {} })).toBe('[]');
  });

  it('never expands a value again, so input cannot inject placeholders', () => {
    expect(
      renderPrompt('{{ inputs.a }} {{ prompt }}', { prompt: '{{ inputs.a }}', inputs: { a: '{{ prompt }}' } }),
    ).toBe('{{ prompt }} {{ inputs.a }}');
  });

  it('leaves text that is not a placeholder alone', () => {
    expect(renderPrompt('{{#each x}} {{ other }} {prompt}', { prompt: 'p', inputs: {} })).toBe(
      '{{#each x}} {{ other }} {prompt}',
    );
  });

  it('fills {{ event.name }} from the event values, and renders one not given as empty', () => {
    const template = 'Sweep as of {{ event.scheduled_at }}{{ event.number }}.';
    expect(renderPrompt(template, { prompt: '', inputs: {}, event: { scheduled_at: '2026-11-30T01:30:00Z' } })).toBe(
      'Sweep as of 2026-11-30T01:30:00Z.',
    );
    expect(renderPrompt(template, { prompt: '', inputs: {} })).toBe('Sweep as of .');
  });

  it('does not take an event value for an input of the same name, or the other way round', () => {
    expect(
      renderPrompt('{{ inputs.x }}|{{ event.x }}', { prompt: '', inputs: { x: 'input' }, event: { x: 'event' } }),
    ).toBe('input|event');
  });

  it('inserts replacement patterns literally', () => {
    expect(renderPrompt('{{ prompt }}', { prompt: "$& $1 $$ $'", inputs: {} })).toBe("$& $1 $$ $'");
  });
});
