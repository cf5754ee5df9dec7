// The dashboard's view of the hub's people. packages/dashboard declares the same shapes itself:
// keep names and types exactly as they are.

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
  /** The account's name, or null when the key was made through the operator API. */
  createdBy: string | null;
  lastUsedAt: Date | null;
  status: 'active' | 'revoked';
}

export interface DashboardStore {
  /** True while the hub has no account at all (the setup link is then valid). */
  setupPending(): Promise<boolean>;
  /** Issues the one-time setup token if setup is pending and none is live; returns the token (store only its digest). */
  issueSetupToken(): Promise<string | undefined>;
  /** Consumes the setup token and creates the owner and the first organization, in one transaction. */
  completeSetup(
    token: string,
    owner: { name: string; email: string; password: string },
    organization: { slug: string; name: string },
  ): Promise<{ ok: true; sessionSecret: string } | { ok: false; reason: 'token_invalid' | 'organization_exists' | 'invalid_input' }>;
  signIn(email: string, password: string, address: string): Promise<{ ok: true; sessionSecret: string } | { ok: false; reason: 'invalid' | 'throttled' }>;
  /** The live session of a cookie secret, moving its last_seen on (at most once a minute); undefined when unknown, revoked, idle too long or past its absolute expiry. */
  session(secret: string): Promise<SessionView | undefined>;
  signOut(secret: string): Promise<void>;
  switchOrganization(secret: string, slug: string): Promise<boolean>;
  apiKeys(organizationId: string): Promise<ApiKeyRow[]>;
  /** Owners only (checked here too): creates a key with the scopes, recording the account; the secret is returned once. */
  createApiKey(
    accountId: string,
    organizationId: string,
    key: { name: string; scopes: string[] },
  ): Promise<{ ok: true; id: string; prefix: string; secret: string } | { ok: false; reason: 'forbidden' }>;
  /** Owners only: revokes through the existing revocation (ApiKeyRepository.revoke: its unconsumed enrollment tokens expire in the same transaction). */
  revokeApiKey(accountId: string, organizationId: string, keyId: string): Promise<'revoked' | 'not_found' | 'forbidden'>;
}

export interface DashboardStoreOptions {
  /** A session unused this long is over. Default SESSION_IDLE_MS (12 h). */
  idleMs?: number;
  /** A session is over this long after sign-in, used or not. Default SESSION_ABSOLUTE_MS (14 days). */
  absoluteMs?: number;
  /** The clock of sessions and throttling (tests pass their own). */
  now?: () => Date;
}
