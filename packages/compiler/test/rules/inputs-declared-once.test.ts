import { describe, expect, it } from 'vitest';
import { compileConfiguration } from '../../src/index.js';
import { configurationWith, found } from '../support/documents.js';

const block = (first: string, second: string) =>
  configurationWith({
    on: `\n      ${first}:\n        inputs:\n          branch: {}\n      ${second}:\n        inputs:\n          branch: {}`,
  });

describe('inputsDeclaredOnce', () => {
  it.each([
    ['under manual.run', '{ manual.run: { inputs: { branch: {} } }, github.mention: {} }'],
    ['under github.mention', '{ github.mention: { inputs: { branch: {} } } }'],
    [
      'under github.mention, with manual.run declaring none',
      '{ manual.run: null, github.mention: { inputs: { a: {} } } }',
    ],
    ['nowhere', '{ manual.run: {}, github.mention: null }'],
  ])('accepts inputs declared %s', (_case, on) => {
    expect(found(configurationWith({ on }))).toEqual([]);
  });

  it('reports inputs declared under both kinds at the second inputs key, naming the first', () => {
    const result = compileConfiguration({ yaml: block('manual.run', 'github.mention') });
    expect(result.ok ? [] : result.issues).toEqual([
      expect.objectContaining({
        code: 'trigger.inputs_declared_twice',
        pointer: '/triggers/0/on/github.mention/inputs',
        line: 13,
        column: 9,
        message: expect.stringContaining('already declared under manual.run (line 10, column 9)'),
      }),
    ]);
  });

  it('reports the later one when github.mention comes first', () => {
    const result = compileConfiguration({ yaml: block('github.mention', 'manual.run') });
    expect(result.ok ? [] : result.issues).toEqual([
      expect.objectContaining({
        code: 'trigger.inputs_declared_twice',
        pointer: '/triggers/0/on/manual.run/inputs',
        line: 13,
        message: expect.stringContaining('already declared under github.mention (line 10, column 9)'),
      }),
    ]);
  });

  it('reports two empty declarations too', () => {
    expect(found(configurationWith({ on: '{ manual.run: { inputs: {} }, github.mention: { inputs: {} } }' }))).toEqual([
      ['trigger.inputs_declared_twice', '/triggers/0/on/github.mention/inputs'],
    ]);
  });

  it('leaves inputs the schema refused to the schema', () => {
    expect(found(configurationWith({ on: '{ manual.run: { inputs: {} }, github.mention: { inputs: [] } }' }))).toEqual([
      ['schema.type', '/triggers/0/on/github.mention/inputs'],
    ]);
  });
});
