import type { Sql } from 'postgres';
import { AuditRepository, type AuditKind } from '../audit/index.js';
import { retireDaemonsEnrolledBy } from '../daemons/index.js';
import { MemberRepository } from './sql/members.js';
import { isUuid } from '@hub/schemas';
import type { MemberChange, MemberRow, MemberRole } from '../dashboard/types.js';

/** The organization's members, ordered by name. */
export async function members(
  sql: Sql,
  organizationId: string,
  page: { offset: number; limit: number },
): Promise<MemberRow[]> {
  if (!isUuid(organizationId)) return [];
  return new MemberRepository(sql).list(organizationId, Math.max(0, page.offset), Math.max(0, page.limit));
}

/** One member of the organization, or undefined. */
export async function member(sql: Sql, organizationId: string, accountId: string): Promise<MemberRow | undefined> {
  return isUuid(organizationId) && isUuid(accountId)
    ? new MemberRepository(sql).one(organizationId, accountId)
    : undefined;
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
    if (rule.event.kind === 'member.removed' || rule.event.kind === 'member.left')
      await retireDaemonsEnrolledBy(tx, organizationId, memberId, { kind: 'account', id: accountId });
    if (rule.demotes) await repository.endInvitationsOf(organizationId, memberId, accountId, rule.event.kind);
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
