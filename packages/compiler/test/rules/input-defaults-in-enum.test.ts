import { describe, expect, it } from 'vitest';
import { configurationWith, found } from '../support/documents.js';

const withInput = (input: string) => configurationWith({ on: `{ manual.run: { inputs: { level: ${input} } } }` });

describe('inputDefaultsInEnum', () => {
  it.each([
    '{ default: low, enum: [low, high] }',
    '{ default: 2, enum: [1, 2] }',
    '{ enum: [low] }',
    '{ default: anything }',
  ])('accepts %s', (input) => {
    expect(found(withInput(input))).toEqual([]);
  });

  it('reports a default outside the enum', () => {
    expect(found(withInput('{ default: medium, enum: [low, high] }'))).toEqual([
      ['input.default_not_in_enum', '/triggers/0/on/manual.run/inputs/level/default'],
    ]);
  });

  it('checks the inputs declared under github.mention', () => {
    const yaml = configurationWith({
      on: '{ github.mention: { inputs: { level: { default: medium, enum: [low, high] } } } }',
    });
    expect(found(yaml)).toEqual([['input.default_not_in_enum', '/triggers/0/on/github.mention/inputs/level/default']]);
  });
});
