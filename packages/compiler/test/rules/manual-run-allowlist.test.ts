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

  it('accepts a non-empty allowlist', () => {
    expect(found(base)).toEqual([]);
  });
});
