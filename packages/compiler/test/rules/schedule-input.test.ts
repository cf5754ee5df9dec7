import { describe, expect, it } from 'vitest';
import { compileConfiguration } from '../../src/index.js';
import { configurationWith, found } from '../support/documents.js';

const inputs = '{ branch: { required: true }, level: { enum: [low, high], default: low } }';
const withInput = (input: string | undefined, declared = inputs) =>
  configurationWith({
    on: `{ manual.run: { inputs: ${declared} }, schedule: [{ cron: "0 2 * * *"${input === undefined ? '' : `, input: ${JSON.stringify(input)}`} }] }`,
  });

describe('scheduleInput', () => {
  it.each(['branch=main', 'branch=main level=high Nightly sweep', 'level=low branch="release 1" x'])(
    'accepts %j',
    (input) => {
      expect(found(withInput(input))).toEqual([]);
    },
  );

  it.each([
    ['a missing required input', 'Nightly sweep'],
    ['no input at all', undefined],
    ['a value outside the enum', 'branch=main level=medium'],
  ])('reports %s at the input', (_case, input) => {
    expect(found(withInput(input))).toEqual([['schedule.input', '/triggers/0/on/schedule/0/input']]);
  });

  it('reports every problem of one input in one issue', () => {
    const result = compileConfiguration({ yaml: withInput('level=medium') });
    expect(result.ok ? [] : result.issues.map((issue) => issue.message)).toEqual([
      'This schedule\'s input does not set the required input "branch" (start it with branch=<value>); and it sets "level" to "medium", which is not one of: low, high.',
    ]);
  });

  it('leaves a default outside its enum to input.default_not_in_enum', () => {
    expect(found(withInput('branch=main', '{ branch: {}, level: { enum: [low], default: high } }'))).toEqual([
      ['input.default_not_in_enum', '/triggers/0/on/manual.run/inputs/level/default'],
    ]);
  });

  it('reads the input against the inputs declared under github.mention', () => {
    const on = (input: string) =>
      `{ github.mention: { inputs: ${inputs} }, schedule: [{ cron: "0 2 * * *", input: ${JSON.stringify(input)} }] }`;
    expect(found(configurationWith({ on: on('branch=main') }))).toEqual([]);
    expect(found(configurationWith({ on: on('level=medium') }))).toEqual([
      ['schedule.input', '/triggers/0/on/schedule/0/input'],
    ]);
  });

  it('reads any input of a trigger that declares none', () => {
    expect(found(configurationWith({ on: '{ schedule: [{ cron: "0 2 * * *", input: "x=1 y" }] }' }))).toEqual([]);
  });
});
