import { describe, expect, it } from 'vitest';
import { compileConfiguration } from '../../src/index.js';
import { configurationWith } from '../support/documents.js';

/** A configuration whose trigger has one schedule entry, its cron written as given (YAML). */
const withCron = (cron: string) => configurationWith({ on: `{ schedule: [{ cron: ${cron} }] }` });

/** [line, column, pointer] of each issue; the `on:` line is line 8, its value at column 9. */
function positions(yaml: string) {
  const result = compileConfiguration({ yaml });
  return result.ok ? [] : result.issues.map((issue) => [issue.code, issue.line, issue.column]);
}

describe('scheduleCron', () => {
  it('accepts a valid cron', () => {
    expect(positions(withCron('"30 2 * * 1-5"'))).toEqual([]);
  });

  it.each([
    // `    on: { schedule: [{ cron: ` is 29 characters: a quoted value starts at column 31.
    ['in double quotes', '"0 24 * * *"', 33],
    ['in single quotes', "'0 24 * * *'", 33],
    ['plain', '0 24 * * *', 32],
  ])('points at the field in error %s', (_case, cron, column) => {
    expect(positions(withCron(cron))).toEqual([['schedule.cron', 8, column]]);
  });

  it('falls back to the scalar when the written text differs from the value', () => {
    expect(positions(withCron('"0 \\x32\\x34 * * *"'))).toEqual([['schedule.cron', 8, 30]]);
  });

  it('points at the line of a field in a block scalar only at its start', () => {
    const yaml = configurationWith({ on: '\n      schedule:\n        - cron: >-\n            0 24 * * *' });
    expect(positions(yaml)).toEqual([['schedule.cron', 10, 17]]);
  });

  it('leaves a cron of the wrong type to the schema', () => {
    expect(positions(withCron('[1, 2]'))).toEqual([['schema.type', 8, 30]]);
  });
});
