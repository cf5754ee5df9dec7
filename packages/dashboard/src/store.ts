/**
 * The storage the dashboard needs, as a port: the server implements it over PostgreSQL and
 * passes it to `dashboardRouter`. The dashboard depends on nothing of ours at run time but the
 * field rules of @hub/schemas, which the hub's services apply too.
 */
import type { MembersPort } from './ports/members.js';
import type { ProjectsPort } from './ports/projects.js';
import type { DaemonsPort } from './ports/daemons.js';
import type { RunsPort } from './ports/runs.js';
import type { AuditPort } from './ports/audit.js';
import type { CliLoginsPort } from './ports/cli-logins.js';
import type { WorkPort } from './ports/work.js';
import type { GitHubPort } from './ports/github.js';
import type { WebhooksPort } from './ports/webhooks.js';

export interface Account {
  id: string;
  email: string;
  name: string;
}

export interface Membership {
  organizationId: string;
  slug: string;
  name: string;
  role: 'owner' | 'member';
}

export interface SessionView {
  account: Account;
  organizations: Membership[];
  current: Membership | undefined;
}

export interface ApiKeyRow {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  createdAt: Date;
  createdBy: string | null;
  lastUsedAt: Date | null;
  status: 'active' | 'revoked';
}

export interface SetupOwner {
  name: string;
  email: string;
  password: string;
}

export interface SetupOrganization {
  slug: string;
  name: string;
}

export type SetupResult =
  | { ok: true; sessionSecret: string }
  | { ok: false; reason: 'token_invalid' | 'organization_exists' | 'invalid_input' };
export type SignInResult =
  | { ok: true; sessionSecret: string }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'throttled'; retryAfterSeconds: number };
export type CreatedKey = { ok: true; id: string; prefix: string; secret: string } | { ok: false; reason: 'forbidden' };

export interface DashboardStore
  extends
    MembersPort,
    ProjectsPort,
    DaemonsPort,
    RunsPort,
    AuditPort,
    CliLoginsPort,
    WorkPort,
    GitHubPort,
    WebhooksPort {
  setupPending(): Promise<boolean>;
  completeSetup(token: string, owner: SetupOwner, organization: SetupOrganization): Promise<SetupResult>;
  signIn(email: string, password: string, address: string): Promise<SignInResult>;
  session(secret: string): Promise<SessionView | undefined>;
  signOut(secret: string): Promise<void>;
  switchOrganization(secret: string, slug: string): Promise<boolean>;
  apiKeys(organizationId: string): Promise<ApiKeyRow[]>;
  createApiKey(accountId: string, organizationId: string, key: { name: string; scopes: string[] }): Promise<CreatedKey>;
  revokeApiKey(
    accountId: string,
    organizationId: string,
    keyId: string,
  ): Promise<'revoked' | 'not_found' | 'forbidden'>;
}
