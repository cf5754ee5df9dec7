import { describe, expect, it } from 'vitest';
import { configurationWith, found } from '../support/documents.js';

const base = configurationWith();

describe('manualRunAllowlist', () => {
  it.each([
    ['no filters', base.replace('    filters: { from_users: [dev-lead] }\n', '')],
    ['filters without from_users', base.replace('{ from_users: [dev-lead] }', '{}')],
    ['an empty from_users', base.replace('[dev-lead]', '[]')],
  ])('reports %s', (_case, yaml) => {
    expect(found(yaml)).toEqual([['trigger.allowlist_required', '/triggers/0/filters/from_users']]);
  });

  it('requires none of a schedule-only trigger, whose runs are not filtered', () => {
    const schedule = configurationWith({ on: '{ schedule: [{ cron: "0 2 * * *" }] }' });
    expect(found(schedule.replace('    filters: { from_users: [dev-lead] }\n', ''))).toEqual([]);
    expect(found(schedule.replace('[dev-lead]', '[]'))).toEqual([]);
  });

  it('requires it of a trigger with manual.run and schedule', () => {
    const both = configurationWith({ on: '{ manual.run: {}, schedule: [{ cron: "0 2 * * *" }] }' });
    expect(found(both.replace('    filters: { from_users: [dev-lead] }\n', ''))).toEqual([
      ['trigger.allowlist_required', '/triggers/0/filters/from_users'],
    ]);
  });

  it('accepts a non-empty allowlist', () => {
    expect(found(base)).toEqual([]);
  });
});
