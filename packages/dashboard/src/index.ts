export { dashboardRouter } from './router.js';
export type { DashboardLog, DashboardOptions } from './http.js';
export { SESSION_COOKIE } from './cookies.js';
export { PAGE_POLICY } from './security.js';
export type {
  Account,
  ApiKeyRow,
  CreatedKey,
  DashboardStore,
  Membership,
  SessionView,
  SetupOrganization,
  SetupOwner,
  SetupResult,
  SignInResult,
} from './store.js';
export type * from './ports/members.js';
export type * from './ports/projects.js';
export type * from './ports/daemons.js';
export type * from './ports/runs.js';
export type * from './ports/audit.js';
export type * from './ports/cli-logins.js';
export type * from './ports/work.js';
export type * from './ports/github.js';
export type * from './ports/webhooks.js';
