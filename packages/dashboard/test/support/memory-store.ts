import type { ApiKeyRow, DashboardStore, Membership, SessionView } from '../../src/store.js';

/** The port in memory, for driving the router over real HTTP; PostgreSQL's version is the server's. */
export class MemoryStore implements DashboardStore {
  pending = true;
  readonly token = 'setup-token';
  readonly accounts = new Map<string, { id: string; email: string; name: string; password: string; memberships: Membership[] }>();
  readonly sessions = new Map<string, { accountId: string; current: string | undefined }>();
  readonly keys = new Map<string, ApiKeyRow & { organizationId: string }>();
  private next = 0;

  async setupPending() {
    return this.pending;
  }
  async completeSetup(token: string, owner: { name: string; email: string; password: string }, organization: { slug: string; name: string }) {
    if (token !== this.token || !this.pending) return { ok: false, reason: 'token_invalid' } as const;
    this.pending = false;
    this.addAccount(owner, [{ organizationId: `org-${organization.slug}`, slug: organization.slug, name: organization.name, role: 'owner' }]);
    return { ok: true, sessionSecret: this.open(owner.email) } as const;
  }
  addAccount(account: { name: string; email: string; password: string }, memberships: Membership[]): void {
    this.accounts.set(account.email, { id: `account-${++this.next}`, ...account, memberships });
  }
  open(email: string): string {
    const account = this.accounts.get(email)!;
    const secret = `session-${++this.next}`;
    this.sessions.set(secret, { accountId: account.id, current: account.memberships[0]?.organizationId });
    return secret;
  }
  async signIn(email: string, password: string) {
    if (email === 'throttled@example.com') return { ok: false, reason: 'throttled' } as const;
    if (this.accounts.get(email)?.password !== password) return { ok: false, reason: 'invalid' } as const;
    return { ok: true, sessionSecret: this.open(email) } as const;
  }
  async session(secret: string): Promise<SessionView | undefined> {
    const session = this.sessions.get(secret);
    const account = [...this.accounts.values()].find((candidate) => candidate.id === session?.accountId);
    if (!session || !account) return undefined;
    const { id, email, name, memberships } = account;
    return { account: { id, email, name }, organizations: memberships, current: memberships.find((m) => m.organizationId === session.current) };
  }
  async signOut(secret: string) {
    this.sessions.delete(secret);
  }
  async switchOrganization(secret: string, slug: string) {
    const view = await this.session(secret);
    const target = view?.organizations.find((membership) => membership.slug === slug);
    if (!target) return false;
    this.sessions.get(secret)!.current = target.organizationId;
    return true;
  }
  async apiKeys(organizationId: string) {
    return [...this.keys.values()].filter((key) => key.organizationId === organizationId);
  }
  private role(accountId: string, organizationId: string) {
    const account = [...this.accounts.values()].find((candidate) => candidate.id === accountId);
    return account?.memberships.find((membership) => membership.organizationId === organizationId)?.role;
  }
  async createApiKey(accountId: string, organizationId: string, key: { name: string; scopes: string[] }) {
    if (this.role(accountId, organizationId) !== 'owner') return { ok: false, reason: 'forbidden' } as const;
    const id = `key-${++this.next}`;
    const prefix = `hub_${String(this.next).padStart(8, '0')}`;
    this.keys.set(id, { id, organizationId, prefix, ...key, createdAt: new Date(), createdBy: accountId, lastUsedAt: null, status: 'active' });
    return { ok: true, id, prefix, secret: `${prefix}_secret-${this.next}` } as const;
  }
  async revokeApiKey(accountId: string, organizationId: string, keyId: string) {
    if (this.role(accountId, organizationId) !== 'owner') return 'forbidden' as const;
    const key = this.keys.get(keyId);
    if (!key || key.organizationId !== organizationId || key.status === 'revoked') return 'not_found' as const;
    key.status = 'revoked';
    return 'revoked' as const;
  }
}
