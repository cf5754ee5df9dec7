import type { Db } from '../../db/connect.js';
import type { Role } from './accounts.js';

export interface MemberRecord {
  accountId: string;
  name: string;
  email: string;
  role: Role;
  since: Date;
}

export interface InvitationRecord {
  organizationId: string;
  organizationName: string;
  organizationSlug: string;
  role: Role;
  expiresAt: Date;
  consumedAt: Date | null;
}

/**
 * Organization members and invitations, passwords and the sessions a membership change touches.
 * Built on the hub's connections or on a transaction (`sql.begin`), as the caller needs.
 */
export class MemberRepository {
  constructor(private readonly sql: Db) {}

  async list(organizationId: string, offset: number, limit: number): Promise<MemberRecord[]> {
    return this.sql<MemberRecord[]>`
      select a.id as "accountId", a.name, a.email, m.role, m.created_at as since
      from organization_members m join accounts a on a.id = m.account_id
      where m.organization_id = ${organizationId}
      order by a.name, a.id
      offset ${offset} limit ${limit}`;
  }

  async one(organizationId: string, accountId: string): Promise<MemberRecord | undefined> {
    const [row] = await this.sql<MemberRecord[]>`
      select a.id as "accountId", a.name, a.email, m.role, m.created_at as since
      from organization_members m join accounts a on a.id = m.account_id
      where m.organization_id = ${organizationId} and m.account_id = ${accountId}`;
    return row;
  }

  /**
   * The organization's owners, their rows locked until the transaction ends: a concurrent
   * removal or demotion of an owner waits, then sees the owners that are left.
   */
  async lockOwners(organizationId: string): Promise<string[]> {
    const rows = await this.sql<{ accountId: string }[]>`
      select account_id as "accountId" from organization_members
      where organization_id = ${organizationId} and role = 'owner'
      order by account_id
      for update`;
    return rows.map((row) => row.accountId);
  }

  /**
   * Ends the membership and revokes the person's CLI credentials in the organization (with their
   * unconsumed enrollment tokens). Two statements: the revocation's snapshot is taken after the
   * delete has waited out any credential being issued (which holds the membership FOR SHARE), so
   * a credential issued just before is revoked too, and none can be issued after.
   */
  async remove(organizationId: string, accountId: string): Promise<boolean> {
    const rows = await this.sql`
      delete from organization_members where organization_id = ${organizationId} and account_id = ${accountId} returning account_id`;
    if (rows.length !== 1) return false;
    await this.sql`
      with revoked as (
        update api_keys set revoked_at = now()
        where organization_id = ${organizationId} and account_id = ${accountId} and kind = 'cli' and revoked_at is null
        returning id
      )
      update enrollment_tokens set expires_at = now()
      where api_key_id in (select id from revoked) and consumed_at is null and expires_at > now()`;
    return true;
  }

  async setRole(organizationId: string, accountId: string, role: Role): Promise<boolean> {
    const rows = await this.sql`
      update organization_members set role = ${role}
      where organization_id = ${organizationId} and account_id = ${accountId} returning account_id`;
    return rows.length === 1;
  }

  /** Adds the membership; false when the account is a member already. */
  async add(organizationId: string, accountId: string, role: Role): Promise<boolean> {
    const rows = await this.sql`
      insert into organization_members (organization_id, account_id, role)
      values (${organizationId}, ${accountId}, ${role})
      on conflict do nothing returning account_id`;
    return rows.length === 1;
  }

  async createInvitation(invitation: {
    organizationId: string;
    digest: Buffer;
    role: Role;
    createdBy: string;
    now: Date;
    expiresAt: Date;
  }): Promise<void> {
    await this.sql`
      insert into invitations (organization_id, digest, role, created_by, created_at, expires_at)
      values (${invitation.organizationId}, ${invitation.digest}, ${invitation.role}, ${invitation.createdBy}, ${invitation.now}, ${invitation.expiresAt})`;
  }

  async invitation(digest: Buffer): Promise<InvitationRecord | undefined> {
    const [row] = await this.sql<InvitationRecord[]>`
      select i.organization_id as "organizationId", o.name as "organizationName", o.slug as "organizationSlug",
             i.role, i.expires_at as "expiresAt", i.consumed_at as "consumedAt"
      from invitations i join organizations o on o.id = i.organization_id
      where i.digest = ${digest}`;
    return row;
  }

  /** Spends a live invitation on the account: one statement, so of two acceptances one wins. */
  async consumeInvitation(
    digest: Buffer,
    accountId: string,
    now: Date,
  ): Promise<{ organizationId: string; slug: string; role: Role } | undefined> {
    const [row] = await this.sql<{ organizationId: string; slug: string; role: Role }[]>`
      update invitations i set consumed_at = ${now}, consumed_by = ${accountId}
      from organizations o
      where i.digest = ${digest} and i.consumed_at is null and i.expires_at > ${now} and o.id = i.organization_id
      returning i.organization_id as "organizationId", o.slug, i.role`;
    return row;
  }

  async passwordHash(accountId: string): Promise<string | undefined> {
    const [row] = await this.sql<
      { hash: string }[]
    >`select password_hash as hash from accounts where id = ${accountId}`;
    return row?.hash;
  }

  async setPassword(accountId: string, passwordHash: string): Promise<void> {
    await this.sql`update accounts set password_hash = ${passwordHash} where id = ${accountId}`;
  }

  /** Ends every session of the account but the one of this digest. */
  async endOtherSessions(accountId: string, keep: Buffer, now: Date): Promise<void> {
    await this.sql`
      update sessions set revoked_at = ${now}
      where account_id = ${accountId} and digest <> ${keep} and revoked_at is null`;
  }

  /** Makes the organization (one of the account's) the session's current one. */
  async setSessionOrganization(digest: Buffer, organizationId: string): Promise<void> {
    await this.sql`update sessions set organization_id = ${organizationId} where digest = ${digest}`;
  }
}
