import type { ApiKeyRow, SessionView } from '../../src/store.js';

/** A value that would run or break out of an attribute if the pages did not escape it. */
export const HOSTILE = `<script>alert(1)</script>"' onfocus="alert(2)`;

export function sessionOf(role: 'owner' | 'member', name = 'Ada'): SessionView {
  const current = { organizationId: 'org-1', slug: 'acme', name: `Acme ${HOSTILE}`, role } as const;
  return {
    account: { id: 'account-1', email: `ada${HOSTILE}@example.com`, name },
    organizations: [current, { organizationId: 'org-2', slug: 'beta', name: `Beta ${HOSTILE}`, role: 'member' }],
    current,
  };
}

export function keyRow(overrides: Partial<ApiKeyRow> = {}): ApiKeyRow {
  return {
    id: 'key-1',
    name: 'CI deploys',
    prefix: 'hub_abcd1234',
    scopes: ['projects:read', 'runs:dispatch'],
    createdAt: new Date('2026-05-01T14:03:00Z'),
    createdBy: 'Ada',
    lastUsedAt: null,
    status: 'active',
    ...overrides,
  };
}
