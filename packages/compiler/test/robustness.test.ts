import { describe, expect, it } from 'vitest';
import {
  checkPath,
  compileBundle,
  compileConfiguration,
  parseManualInput,
  renderPrompt,
  resolveResources,
  type CompiledConfiguration,
} from '../src/index.js';
import { configurationWith, exampleBundle, exampleConfiguration } from './support/documents.js';

const codes = (result: ReturnType<typeof compileConfiguration>) =>
  result.ok ? [] : result.issues.map((issue) => issue.code);

describe('the helpers take any input without throwing', () => {
  const compiled = compileConfiguration({
    yaml: exampleConfiguration,
    partials: [{ path: 'testing.md', content: 'x' }],
  });
  const value = (compiled.ok ? compiled.value : undefined) as CompiledConfiguration;

  it.each([
    {},
    { daemons: null },
    { daemons: [{ name: 'dev-box' }] },
    { daemons: [{ name: 'dev-box', runtimes: [null, { provider: 'claude', modes: 'edit' }] }] },
    null,
  ])('resolveResources with the catalog %j', (catalog) => {
    expect(() => resolveResources(value, catalog as never)).not.toThrow();
  });

  it('parseManualInput, renderPrompt and checkPath with nonsense', () => {
    expect(parseManualInput('a=b', undefined as never)).toEqual({ ok: true, inputs: {}, prompt: 'a=b' });
    expect(renderPrompt(undefined as never, undefined as never)).toBe('');
    expect(renderPrompt('{{ prompt }}{{ inputs.a }}', { prompt: 1, inputs: { a: 2 } } as never)).toBe('');
    expect(checkPath('a', null)).toEqual({ ok: true, path: 'a' });
  });

  it('clamps limits that would trade an issue for a crash', () => {
    const yaml = `x: ${'['.repeat(5000)}${']'.repeat(5000)}\n`;
    expect(codes(compileConfiguration({ yaml }, { limits: { maxDepth: 1e9 } }))).toEqual(['limit.depth']);
  });
});

describe('YAML corners', () => {
  it('refuses a custom tag on a key', () => {
    const result = compileConfiguration({ yaml: configurationWith().replace('environments:', '!foo environments:') });
    expect(result.ok ? [] : result.issues.map((issue) => [issue.code, issue.line, issue.column])).toEqual([
      ['yaml.tag', 1, 1],
    ]);
  });

  it('positions a tag on a block collection at the tag', () => {
    const result = compileConfiguration({ yaml: 'environments: []\ntriggers: []\nx: !foo\n  a: 1\n' });
    expect(
      result.ok
        ? []
        : result.issues.filter((issue) => issue.code === 'yaml.tag').map((issue) => [issue.line, issue.column]),
    ).toEqual([[3, 4]]);
  });

  it('reads lone CR line endings as line breaks', () => {
    expect(codes(compileConfiguration({ yaml: configurationWith().replace(/\n/g, '\r') }))).toEqual([]);
  });

  it('refuses raw control characters with their position', () => {
    const result = compileConfiguration({ yaml: configurationWith().replace('dev-lead', 'dev\u0000lead') });
    expect(result.ok ? [] : result.issues.map((issue) => [issue.code, issue.line])).toEqual([['yaml.syntax', 10]]);
  });

  it('bounds the text aliases expand to, not only their count', () => {
    const text = 'x'.repeat(100_000);
    const yaml = `a: &t "${text}"\nb: [${Array(20).fill('*t').join(', ')}]\n`;
    expect(codes(compileConfiguration({ yaml }))).toEqual(['limit.alias_expansion']);
  });

  it('keeps anchors defined in the value of a refused key', () => {
    expect(codes(compileConfiguration({ yaml: '1: &a x\nz: *a\n' }))).not.toContain('yaml.unknown_alias');
  });
});

describe('one cause, one issue', () => {
  it('does not call a partial extra when the include that names it was misspelled', () => {
    const yaml = configurationWith().replace(
      '          - text: "Fix it. {{ prompt }}"',
      '          - text: "Fix it. {{ prompt }}"\n          - includ: testing.md',
    );
    expect(codes(compileConfiguration({ yaml, partials: [{ path: 'testing.md', content: 'x' }] }))).toEqual([
      'schema.unknown_key',
    ]);
  });

  it('does not call the hub file missing when it was refused for its path', () => {
    const files = exampleBundle.map((file) =>
      file.path === '.hub/hub.yml' ? { ...file, path: '.HUB/HUB.YML' } : file,
    );
    const result = compileBundle({ files });
    expect(result.ok ? [] : result.issues.map((issue) => issue.code)).not.toContain('bundle.hub_file_missing');
  });
});
