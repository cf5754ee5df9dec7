import type { Sql } from 'postgres';
import { AccountRepository } from '../people/sql/accounts.js';
import { auditStore } from '../audit/dashboard.js';
import { cliLoginStore } from '../logins/dashboard.js';
import { daemonStore } from '../daemons/dashboard.js';
import { apiKeys, createApiKey, revokeApiKey } from '../keys/dashboard.js';
import { memberStore } from '../people/members.js';
import { projectStore } from '../projects/dashboard.js';
import { DEFAULT_TIMING, runStore } from '../runs/index.js';
import { Sessions } from '../people/sessions.js';
import { completeSetup, issueSetupToken } from '../people/setup.js';
import { signIn } from '../people/sign-in.js';
import type { DashboardStore, DashboardStoreOptions } from './types.js';

export type { Account, ApiKeyRow, DashboardStore, DashboardStoreOptions, Membership, SessionView } from './types.js';
export { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS, SESSION_TOUCH_MS } from '../people/sessions.js';
export { THROTTLE_PER_ACCOUNT, THROTTLE_PER_ADDRESS, THROTTLE_WINDOW_MS } from '../people/sign-in.js';

/** Everything the dashboard stores, over the hub's database (PostgreSQL is the system of record). */
export function dashboardStore(sql: Sql, options: DashboardStoreOptions = {}): DashboardStore {
  const sessions = new Sessions(sql, options);
  return {
    ...memberStore(sql, sessions),
    ...projectStore(sql),
    ...daemonStore(sql, options.offlineAfterMs ?? DEFAULT_TIMING.offlineAfterMs),
    ...runStore(sql),
    ...auditStore(sql),
    ...cliLoginStore(sql),
    setupPending: async () => !(await new AccountRepository(sql).anyAccount()),
    issueSetupToken: () => issueSetupToken(sql),
    completeSetup: (token, owner, organization) => completeSetup(sql, sessions, token, owner, organization),
    signIn: (email, password, address) => signIn(sql, sessions, email, password, address),
    session: (secret) => sessions.view(secret),
    signOut: (secret) => sessions.end(secret),
    switchOrganization: (secret, slug) => sessions.switchOrganization(secret, slug),
    apiKeys: (organizationId) => apiKeys(sql, organizationId),
    createApiKey: (accountId, organizationId, key) => createApiKey(sql, accountId, organizationId, key),
    revokeApiKey: (accountId, organizationId, keyId) => revokeApiKey(sql, accountId, organizationId, keyId),
  };
}
