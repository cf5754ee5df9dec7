import { describe, expect, it } from 'vitest';
import { compileConfiguration } from '../../src/index.js';
import { configurationWith, found } from '../support/documents.js';

const base = configurationWith();

describe('allowlistRequired', () => {
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

  it.each([
    ['github.mention', '{ github.mention: {} }'],
    ['github.label', '{ github.label: { name: triage } }'],
    [
      'both GitHub kinds and a schedule',
      '{ github.mention: null, github.label: { name: x }, schedule: [{ cron: "@daily" }] }',
    ],
  ])('requires it of a trigger with %s', (_case, on) => {
    const yaml = configurationWith({ on });
    expect(found(yaml)).toEqual([]);
    expect(found(yaml.replace('    filters: { from_users: [dev-lead] }\n', ''))).toEqual([
      ['trigger.allowlist_required', '/triggers/0/filters/from_users'],
    ]);
    expect(found(yaml.replace('[dev-lead]', '[]'))).toEqual([
      ['trigger.allowlist_required', '/triggers/0/filters/from_users'],
    ]);
  });

  it.each([
    [
      '{ manual.run: {} }',
      'A trigger with manual.run needs filters.from_users: a non-empty list of the actors allowed to dispatch it.',
    ],
    [
      '{ github.label: { name: triage } }',
      'A trigger with github.label needs filters.from_users: a non-empty list of the GitHub logins allowed to start it from GitHub (compared case-insensitively).',
    ],
    [
      '{ manual.run: {}, github.mention: {}, schedule: [{ cron: "@daily" }] }',
      'A trigger with manual.run and github.mention needs filters.from_users: a non-empty list of the actors allowed to dispatch it, and the GitHub logins allowed to start it from GitHub (compared case-insensitively).',
    ],
  ])('says whom it lists, for %s', (on, message) => {
    const result = compileConfiguration({ yaml: configurationWith({ on }).replace('[dev-lead]', '[]') });
    expect(result.ok ? [] : result.issues.map((issue) => issue.message)).toEqual([message]);
  });

  it('accepts a non-empty allowlist', () => {
    expect(found(base)).toEqual([]);
  });
});
