// What the hub cannot store in PostgreSQL (U+0000 anywhere, lone surrogates in jsonb) is refused,
// however a document spells it: each YAML escape that decodes to one, in a value or a key, and
// a raw NUL in a partial.
import { describe, expect, it } from 'vitest';
import {
  compileBundle,
  compileConfiguration,
  compileTrigger,
  type CompileResult,
  type CompiledConfiguration,
} from '../src/index.js';
import { configurationWith, exampleBundle, exampleTrigger } from './support/documents.js';

const shape = (result: CompileResult<CompiledConfiguration>) =>
  result.ok ? [] : result.issues.map((issue) => [issue.code, issue.pointer, issue.line, issue.column]);

const escapes = [
  ['\\0', 'text.nul_character'],
  ['\\x00', 'text.nul_character'],
  ['\\u0000', 'text.nul_character'],
  ['\\U00000000', 'text.nul_character'],
  ['\\uD800', 'text.malformed_unicode'],
  ['\\uDBFF', 'text.malformed_unicode'],
  ['\\uDC00', 'text.malformed_unicode'],
  ['\\U0000D800', 'text.malformed_unicode'],
  ['\\uDE00\\uD83D', 'text.malformed_unicode'],
] as const;

describe.each(escapes)('the escape %s', (escape, code) => {
  it('in a value is refused at the value', () => {
    const yaml = exampleTrigger.replace('"Triage new issues. {{ prompt }}"', `"Triage ${escape} issues. {{ prompt }}"`);
    expect(shape(compileTrigger({ yaml }))).toEqual([[code, '/run/agent/prompt', 14, 13]]);
  });

  it('in a key is refused at the mapping, positioned at the key', () => {
    const yaml = exampleTrigger.replace('    mode: auto', `    "mo${escape}de": auto`);
    expect(shape(compileTrigger({ yaml }))).toEqual([[code, '/run/agent', 13, 5]]);
  });

  it('in a single-quoted or plain scalar is only text', () => {
    for (const written of [`'Triage ${escape} issues. {{ prompt }}'`, `Triage ${escape} issues. {{ prompt }}`]) {
      const yaml = exampleTrigger.replace('"Triage new issues. {{ prompt }}"', written);
      expect(shape(compileTrigger({ yaml }))).toEqual([]);
    }
  });
});

describe('storable text', () => {
  it('accepts a surrogate pair written as two escapes or as one', () => {
    for (const escape of ['\\uD83D\\uDE00', '\\U0001F600']) {
      const result = compileTrigger({ yaml: exampleTrigger.replace('new issues', `new ${escape} issues`) });
      expect(result.ok && result.value.triggers[0]?.steps[0]?.prompt).toBe('Triage new 😀 issues. {{ prompt }}');
    }
  });

  it('reports a value with both a NUL and a lone surrogate under both codes', () => {
    const yaml = exampleTrigger.replace('new issues', 'new \\0 \\uD800 issues');
    expect(shape(compileTrigger({ yaml })).map(([code]) => code)).toEqual([
      'text.malformed_unicode',
      'text.nul_character',
    ]);
  });

  it('reports an anchored value once, not again where an alias repeats it', () => {
    const yaml = configurationWith({
      steps: `      - id: fix
        environment: laptop
        agent: { provider: claude }
        prompt:
          - text: &fix "Fix it.\\0 {{ prompt }}"
          - text: *fix`,
    });
    expect(shape(compileConfiguration({ yaml }))).toEqual([
      ['text.nul_character', '/triggers/0/steps/0/prompt/0/text', 16, 24],
    ]);
  });

  it('leaves a refused key out: what lies below it is reported at the mapping too, so no pointer carries it', () => {
    const yaml = configurationWith({ on: '{ manual.run: { inputs: { "a\\0": { "b\\0": "\\0" } } } }' });
    const inputs = '/triggers/0/on/manual.run/inputs';
    expect(shape(compileConfiguration({ yaml }))).toEqual(
      [35, 44, 51].map((column) => ['text.nul_character', inputs, 8, column]),
    );
  });

  it('refuses a raw NUL in a partial, and still reports the documents', () => {
    const yaml = configurationWith({
      steps: `      - id: fix
        environment: nowhere
        agent: { provider: claude }
        prompt:
          - include: testing.md`,
    });
    const result = compileConfiguration({
      yaml,
      partials: [{ path: 'testing.md', content: 'Run\n the\u0000 tests.' }],
    });
    expect(result.ok ? [] : result.issues.map((issue) => [issue.code, issue.file, issue.line, issue.column])).toEqual([
      ['step.unknown_environment', undefined, 13, 22],
      ['text.nul_character', 'testing.md', 2, 5],
    ]);
  });

  it('refuses a raw NUL in a bundle partial, and in a bundle YAML file as a syntax error', () => {
    const withPartial = exampleBundle.map((file) =>
      file.path.endsWith('.md') ? { ...file, content: `\u0000${file.content}` } : file,
    );
    expect(shape(compileBundle({ files: withPartial }))).toEqual([['text.nul_character', '/files/2/content', 1, 1]]);
    const withHub = exampleBundle.map((file) =>
      file.path.endsWith('hub.yml') ? { ...file, content: `${file.content}\u0000` } : file,
    );
    expect(shape(compileBundle({ files: withHub })).map(([code]) => code)).toEqual(['yaml.syntax']);
  });

  it('refuses a NUL in a path as noncanonical', () => {
    const result = compileConfiguration({
      yaml: configurationWith(),
      partials: [{ path: 'test\u0000ing.md', content: 'x' }],
    });
    expect(shape(result)).toEqual([['path.noncanonical', '/partials/0/path', undefined, undefined]]);
  });
});
