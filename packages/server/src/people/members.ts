import type { Sql } from 'postgres';
import { AuditRepository, type AuditKind } from '../audit/sql.js';
import { MemberRepository } from './sql/members.js';
import { isUuid } from '@hub/schemas';
import { acceptInvitation, acceptInvitationAsNewAccount, createInvitation, invitation } from './invitations.js';
import type { Sessions } from './sessions.js';
import { changePassword, createOrganization } from './settings.js';
import type { MemberChange, MemberRow, MemberRole, MembersPort } from '../dashboard/types.js';

/** The members part of the dashboard's store: members, invitations, the account page. */
export function memberStore(sql: Sql, sessions: Sessions): MembersPort {
  return {
    members: (organizationId, page) => members(sql, organizationId, page),
    member: async (organizationId, accountId) =>
      isUuid(organizationId) && isUuid(accountId)
        ? new MemberRepository(sql).one(organizationId, accountId)
        : undefined,
    createInvitation: (accountId, organizationId, role) =>
      createInvitation(sql, sessions, accountId, organizationId, role),
    invitation: (token) => invitation(sql, sessions, token),
    acceptInvitationAsNewAccount: (token, account) => acceptInvitationAsNewAccount(sql, sessions, token, account),
    acceptInvitation: (token, sessionSecret) => acceptInvitation(sql, sessions, token, sessionSecret),
    removeMember: (accountId, organizationId, memberId) => removeMember(sql, accountId, organizationId, memberId),
    changeRole: (accountId, organizationId, memberId, role) =>
      changeRole(sql, accountId, organizationId, memberId, role),
    leaveOrganization: (accountId, organizationId) => leaveOrganization(sql, accountId, organizationId),
    changePassword: (sessionSecret, current, next) => changePassword(sql, sessions, sessionSecret, current, next),
    createOrganization: (sessionSecret, organization) => createOrganization(sql, sessions, sessionSecret, organization),
  };
}

/** The organization's members, ordered by name. */
export async function members(
  sql: Sql,
  organizationId: string,
  page: { offset: number; limit: number },
): Promise<MemberRow[]> {
  if (!isUuid(organizationId)) return [];
  return new MemberRepository(sql).list(organizationId, Math.max(0, page.offset), Math.max(0, page.limit));
}

/** An owner removes a member (or themselves); the last owner stays. */
export function removeMember(
  sql: Sql,
  accountId: string,
  organizationId: string,
  memberId: string,
): Promise<MemberChange> {
  const event = { kind: accountId === memberId ? 'member.left' : 'member.removed' } as const;
  return changeMembership(
    sql,
    accountId,
    organizationId,
    memberId,
    { ownersOnly: true, demotes: true, event },
    (repository) => repository.remove(organizationId, memberId),
  );
}

/** An owner changes a member's role; the last owner is never demoted. */
export function changeRole(
  sql: Sql,
  accountId: string,
  organizationId: string,
  memberId: string,
  role: MemberRole,
): Promise<MemberChange> {
  if (role !== 'owner' && role !== 'member') return Promise.resolve('not_found');
  const rule = { ownersOnly: true, demotes: role === 'member', event: { kind: 'member.role_changed', role } } as const;
  return changeMembership(sql, accountId, organizationId, memberId, rule, (repository) =>
    repository.setRole(organizationId, memberId, role),
  );
}

/** Anyone leaves an organization, except its last owner. */
export function leaveOrganization(sql: Sql, accountId: string, organizationId: string): Promise<MemberChange> {
  return changeMembership(
    sql,
    accountId,
    organizationId,
    accountId,
    { ownersOnly: false, demotes: true, event: { kind: 'member.left' } },
    (repository) => repository.remove(organizationId, accountId),
  );
}

/**
 * One change of a membership, in a transaction that first locks the organization's owners'
 * rows: two owners removing or demoting each other at once are taken in turn, and the second
 * finds itself no longer an owner, or the other the last one. The change's event is recorded in
 * the same transaction.
 */
async function changeMembership(
  sql: Sql,
  accountId: string,
  organizationId: string,
  memberId: string,
  rule: { ownersOnly: boolean; demotes: boolean; event: { kind: AuditKind; role?: MemberRole } },
  change: (repository: MemberRepository) => Promise<boolean>,
): Promise<MemberChange> {
  if (!isUuid(accountId) || !isUuid(organizationId)) return 'forbidden';
  if (!isUuid(memberId)) return 'not_found';
  return sql.begin(async (tx): Promise<MemberChange> => {
    const repository = new MemberRepository(tx);
    const owners = await repository.lockOwners(organizationId);
    if (rule.ownersOnly && !owners.includes(accountId)) return 'forbidden';
    if (rule.demotes && owners.length === 1 && owners[0] === memberId) return 'last_owner';
    const audit = new AuditRepository(tx);
    if (!(await change(repository))) return 'not_found';
    await audit.memberEvent(
      organizationId,
      rule.event.kind,
      { kind: 'account', id: accountId },
      memberId,
      rule.event.role,
    );
    return 'done';
  });
}
