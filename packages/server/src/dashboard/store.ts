import type { Sql } from 'postgres';
import { auditStore } from '../audit/index.js';
import { cliLoginStore } from '../logins/index.js';
import { daemonStore } from '../daemons/index.js';
import { keyStore } from '../keys/index.js';
import { githubStore } from '../github/link/index.js';
import { peopleStore } from '../people/index.js';
import { projectStore } from '../projects/index.js';
import { DEFAULT_TIMING, projectWorkStore, runStore } from '../runs/index.js';
import { webhookStore } from '../webhooks/dashboard.js';
import type { DashboardStore, DashboardStoreOptions } from './types.js';

export type { Account, ApiKeyRow, DashboardStore, DashboardStoreOptions, Membership, SessionView } from './types.js';
export {
  SESSION_ABSOLUTE_MS,
  SESSION_IDLE_MS,
  SESSION_TOUCH_MS,
  THROTTLE_PER_ACCOUNT,
  THROTTLE_PER_ADDRESS,
  THROTTLE_WINDOW_MS,
} from '../people/index.js';

/** Everything the dashboard stores, over the hub's database (PostgreSQL is the system of record). */
export function dashboardStore(sql: Sql, options: DashboardStoreOptions = {}): DashboardStore {
  return {
    ...peopleStore(sql, options),
    ...projectStore(sql),
    ...daemonStore(sql, options.offlineAfterMs ?? DEFAULT_TIMING.offlineAfterMs),
    ...runStore(sql, options.serveOutput),
    ...projectWorkStore(sql, options.dispatcher),
    ...auditStore(sql),
    ...cliLoginStore(sql, undefined, options.cliCredentials),
    ...keyStore(sql),
    ...githubStore(sql, options.github, options.log),
    ...webhookStore(sql, options.webhooks?.allowPrivate ?? false),
  };
}
