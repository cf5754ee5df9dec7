import type { Fragment } from 'postgres';
import { auditColumns, type AuditKind } from '../../audit/index.js';
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
  /** Revoked by an owner, or ended with its inviter (removed, left, demoted). */
  revokedAt: Date | null;
  /** Whether the account that made it is still an owner of the organization. */
  inviterOwner: boolean;
}

/** A live invitation of the organization: not accepted, not revoked, not expired. */
export interface InvitationListRecord {
  id: string;
  role: Role;
  invitedBy: { accountId: string; name: string };
  createdAt: Date;
  expiresAt: Date;
}

/** Why an invitation ended with its inviter: removed (or left) the organization, or demoted to member. */
export type InviterEnd = 'inviter_removed' | 'inviter_demoted';

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
    const { organizationId, createdBy } = invitation;
    await this.sql`
      with created as (
        insert into invitations (organization_id, digest, role, created_by, created_at, expires_at)
        values (${organizationId}, ${invitation.digest}, ${invitation.role}, ${createdBy}, ${invitation.now}, ${invitation.expiresAt})
        returning id, role, expires_at
      )
      insert into audit_events (organization_id, kind, actor_kind, api_key_id, account_id, subject)
      select ${auditColumns(this.sql, organizationId, 'invitation.created', { kind: 'account', id: createdBy }, this.sql`jsonb_build_object('invitationId', c.id, 'role', c.role, 'expiresAt', c.expires_at)`)}
      from created c`;
  }

  async invitation(digest: Buffer): Promise<InvitationRecord | undefined> {
    const [row] = await this.sql<InvitationRecord[]>`
      select i.organization_id as "organizationId", o.name as "organizationName", o.slug as "organizationSlug",
             i.role, i.expires_at as "expiresAt", i.consumed_at as "consumedAt", i.revoked_at as "revokedAt",
             exists (select 1 from organization_members m
                     where m.organization_id = i.organization_id and m.account_id = i.created_by and m.role = 'owner')
               as "inviterOwner"
      from invitations i join organizations o on o.id = i.organization_id
      where i.digest = ${digest}`;
    return row;
  }

  /**
   * Spends a live invitation on the account: one statement, so of two acceptances one wins. Live
   * means not consumed, not revoked, not expired, and made by an account that is an owner of the
   * organization now: its membership is locked FOR SHARE, so a removal or demotion of the inviter
   * in flight either commits first (and this finds no owner) or waits for this transaction.
   */
  async consumeInvitation(
    digest: Buffer,
    accountId: string,
    now: Date,
  ): Promise<{ id: string; organizationId: string; slug: string; role: Role } | undefined> {
    const [row] = await this.sql<{ id: string; organizationId: string; slug: string; role: Role }[]>`
      with inviter as (
        select m.account_id from invitations i
        join organization_members m on m.organization_id = i.organization_id and m.account_id = i.created_by
        where i.digest = ${digest} and m.role = 'owner'
        for share of m
      )
      update invitations i set consumed_at = ${now}, consumed_by = ${accountId}
      from organizations o
      where i.digest = ${digest} and i.consumed_at is null and i.revoked_at is null and i.expires_at > ${now}
        and o.id = i.organization_id and i.created_by in (select account_id from inviter)
      returning i.id, i.organization_id as "organizationId", o.slug, i.role`;
    return row;
  }

  /** The organization's live invitations (not accepted, revoked or expired; made by an owner), newest first. */
  async liveInvitations(organizationId: string, now: Date): Promise<InvitationListRecord[]> {
    return this.sql<InvitationListRecord[]>`
      select i.id, i.role, jsonb_build_object('accountId', a.id, 'name', a.name) as "invitedBy",
             i.created_at as "createdAt", i.expires_at as "expiresAt"
      from invitations i
      join accounts a on a.id = i.created_by
      join organization_members m on m.organization_id = i.organization_id and m.account_id = i.created_by and m.role = 'owner'
      where i.organization_id = ${organizationId} and i.consumed_at is null and i.revoked_at is null and i.expires_at > ${now}
      order by i.created_at desc, i.id`;
  }

  /** An owner revokes a live invitation of the organization, with its event; false when there is none of this id. */
  async revokeInvitation(organizationId: string, invitationId: string, by: string, now: Date): Promise<boolean> {
    const rows = await this.sql`
      with revoked as (
        update invitations set revoked_at = ${now}, revoked_by = ${by}, revoked_reason = 'revoked'
        where id = ${invitationId} and organization_id = ${organizationId}
          and consumed_at is null and revoked_at is null and expires_at > ${now}
        returning id, role, created_by
      )
      insert into audit_events (organization_id, kind, actor_kind, api_key_id, account_id, subject)
      select ${auditColumns(this.sql, organizationId, 'invitation.revoked', { kind: 'account', id: by }, this.invitationSubject())}
      from revoked r join accounts a on a.id = r.created_by
      returning id`;
    return rows.length === 1;
  }

  /**
   * Ends the live invitations the inviter made in the organization, when a membership change
   * removes them (removal, leaving: `inviter_removed`) or makes them a member
   * (`inviter_demoted`); a change of another kind ends nothing. Each gets an
   * `invitation.revoked` event whose actor is whoever made the change, its reason in the subject.
   */
  async endInvitationsOf(organizationId: string, inviterId: string, by: string, change: AuditKind): Promise<void> {
    const reason: InviterEnd = change === 'member.role_changed' ? 'inviter_demoted' : 'inviter_removed';
    await this.sql`
      with ended as (
        update invitations set revoked_at = now(), revoked_reason = ${reason}
        where organization_id = ${organizationId} and created_by = ${inviterId}
          and consumed_at is null and revoked_at is null
        returning id, role, created_by
      )
      insert into audit_events (organization_id, kind, actor_kind, api_key_id, account_id, subject)
      select ${auditColumns(this.sql, organizationId, 'invitation.revoked', { kind: 'account', id: by }, this.sql`${this.invitationSubject()} || jsonb_build_object('reason', ${reason}::text)`)}
      from ended r join accounts a on a.id = r.created_by`;
  }

  /** An ended invitation (`r`) and its inviter (`a`) as an event's subject. */
  private invitationSubject(): Fragment {
    return this.sql`jsonb_build_object('invitationId', r.id, 'role', r.role, 'invitedBy', a.name, 'invitedById', a.id)`;
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
