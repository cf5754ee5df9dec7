import type { Db } from '../../db/connect.js';

export interface AccountRow {
  id: string;
  email: string;
  name: string;
}

export type Role = 'owner' | 'member';

export interface MembershipRow {
  organizationId: string;
  slug: string;
  name: string;
  role: Role;
}

/**
 * Accounts, their memberships of organizations, the setup link, and who made which API key.
 * Built on the hub's connections or on a transaction (`sql.begin`), as the caller needs.
 */
export class AccountRepository {
  constructor(private readonly sql: Db) {}

  /** Whether any account exists (the hub is set up once one does). */
  async anyAccount(): Promise<boolean> {
    const [row] = await this.sql<{ any: boolean }[]>`select exists (select 1 from accounts) as any`;
    return row?.any ?? false;
  }

  /** The new account, or undefined when the e-mail (already normalized) is taken. */
  async create(account: { email: string; name: string; passwordHash: string }): Promise<AccountRow | undefined> {
    const [row] = await this.sql<AccountRow[]>`
      insert into accounts (email, name, password_hash)
      values (${account.email}, ${account.name}, ${account.passwordHash})
      on conflict (email) do nothing
      returning id, email, name`;
    return row;
  }

  async byEmail(email: string): Promise<(AccountRow & { passwordHash: string }) | undefined> {
    const [row] = await this.sql<(AccountRow & { passwordHash: string })[]>`
      select id, email, name, password_hash as "passwordHash" from accounts where email = ${email}`;
    return row;
  }

  async addMember(organizationId: string, accountId: string, role: Role): Promise<void> {
    await this.sql`
      insert into organization_members (organization_id, account_id, role)
      values (${organizationId}, ${accountId}, ${role})`;
  }

  /**
   * The account's role in the organization, or undefined. FOR SHARE: inside a transaction, the
   * membership cannot change or go until it ends.
   */
  async role(organizationId: string, accountId: string): Promise<Role | undefined> {
    const [row] = await this.sql<{ role: Role }[]>`
      select role from organization_members
      where organization_id = ${organizationId} and account_id = ${accountId}
      for share`;
    return row?.role;
  }

  /** The account's organizations, ordered by slug. */
  async memberships(accountId: string): Promise<MembershipRow[]> {
    return this.sql<MembershipRow[]>`
      select o.id as "organizationId", o.slug, o.name, m.role
      from organization_members m join organizations o on o.id = m.organization_id
      where m.account_id = ${accountId}
      order by o.slug`;
  }

  /**
   * Records a new setup token's digest in place of any live one (whose link stops working),
   * unless the hub already has an account: each start of a hub without an owner prints a fresh
   * link. The partial unique index keeps one live token across instances.
   */
  async issueSetupToken(digest: Buffer): Promise<boolean> {
    // Two statements: in one, the insert would meet the row its own delete is removing. Of
    // instances starting together, the last to insert has the live link; an instance whose
    // insert meets another's gets false.
    await this.sql`delete from setup_tokens where consumed_at is null`;
    const rows = await this.sql`
      insert into setup_tokens (digest)
      select ${digest} where not exists (select 1 from accounts)
      on conflict do nothing
      returning id`;
    return rows.length === 1;
  }

  /** Consumes the live setup token with this digest; false when there is none. */
  async consumeSetupToken(digest: Buffer): Promise<boolean> {
    const rows = await this.sql`
      update setup_tokens set consumed_at = now()
      where digest = ${digest} and consumed_at is null
      returning id`;
    return rows.length === 1;
  }
}
