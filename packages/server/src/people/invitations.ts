import type { Sql } from 'postgres';
import { AccountRepository } from './sql/accounts.js';
import { AuditRepository } from '../audit/index.js';
import { asOwner } from '../projects/index.js';
import { MemberRepository, type InvitationRecord } from './sql/members.js';
import { SignInFailureRepository } from './sql/sign-in-failures.js';
import { isUuid } from '@hub/schemas';
import { accountInput } from './input.js';
import { hashPassword, verifyPassword } from './passwords.js';
import { newSecret, secretDigest, wellFormedSecret } from './secrets.js';
import type { Sessions } from './sessions.js';
import { normalizeAddress, passedSignIn, throttleSignIn } from './sign-in.js';
import type {
  AcceptedInvitation,
  CreatedInvitation,
  InvitationLookup,
  InvitationRevocation,
  InvitationRow,
  MemberRole,
  NewAccount,
} from '../dashboard/types.js';

/** An invitation link works for 7 days, once. */
export const INVITATION_MS = 7 * 24 * 60 * 60 * 1000;

type Failure = Exclude<AcceptedInvitation, { ok: true } | { reason: 'throttled' }>['reason'];

/** Thrown inside an acceptance's transaction to roll it back with an answer. */
class Refused extends Error {
  constructor(readonly reason: Failure) {
    super(reason);
  }
}

/** An owner's new invitation: the link's secret is in the answer only, its digest in the database. */
export async function createInvitation(
  sql: Sql,
  sessions: Sessions,
  accountId: string,
  organizationId: string,
  role: MemberRole,
): Promise<CreatedInvitation> {
  if (!isUuid(accountId) || !isUuid(organizationId) || (role !== 'owner' && role !== 'member'))
    return { ok: false, reason: 'forbidden' };
  const token = newSecret();
  const now = sessions.now();
  const expiresAt = new Date(now.getTime() + INVITATION_MS);
  return sql.begin(async (tx): Promise<CreatedInvitation> => {
    if ((await new AccountRepository(tx).role(organizationId, accountId)) !== 'owner')
      return { ok: false, reason: 'forbidden' };
    await new MemberRepository(tx).createInvitation({
      organizationId,
      digest: secretDigest(token),
      role,
      createdBy: accountId,
      now,
      expiresAt,
    });
    return { ok: true, token, expiresAt };
  });
}

export async function invitation(sql: Sql, sessions: Sessions, token: string): Promise<InvitationLookup> {
  if (!wellFormedSecret(token)) return { status: 'unknown' };
  return lookup(await new MemberRepository(sql).invitation(secretDigest(token)), sessions.now());
}

/** The organization's live invitations, newest first. */
export async function invitations(sql: Sql, sessions: Sessions, organizationId: string): Promise<InvitationRow[]> {
  if (!isUuid(organizationId)) return [];
  return new MemberRepository(sql).liveInvitations(organizationId, sessions.now());
}

/** An owner revokes a live invitation, with its `invitation.revoked` event: its link stops working. */
export async function revokeInvitation(
  sql: Sql,
  sessions: Sessions,
  accountId: string,
  organizationId: string,
  invitationId: string,
): Promise<InvitationRevocation> {
  if (!isUuid(accountId) || !isUuid(organizationId)) return 'forbidden';
  const revoked = await asOwner(
    sql,
    { kind: 'account', id: accountId },
    organizationId,
    async (tx) =>
      isUuid(invitationId) &&
      (await new MemberRepository(tx).revokeInvitation(organizationId, invitationId, accountId, sessions.now())),
  );
  if (typeof revoked !== 'boolean') return 'forbidden';
  return revoked ? 'revoked' : 'not_found';
}

/**
 * Accepts the invitation with the sign-up form: a new account, its membership and its first
 * session, in one transaction that spends the invitation. The form never tells whether an
 * e-mail has an account: every attempt counts in the sign-in throttle first; an e-mail that has
 * an account is a sign-in (its password joins that account and signs it in; another answers
 * `wrong_credentials`, as a wrong sign-in does, stays counted, and spends nothing). Either way
 * one scrypt runs (the new account's hash, or the verification).
 */
export async function acceptInvitationAsNewAccount(
  sql: Sql,
  sessions: Sessions,
  token: string,
  account: NewAccount,
  address: string,
): Promise<AcceptedInvitation> {
  const found = await invitation(sql, sessions, token);
  if (found.status !== 'open') return { ok: false, reason: found.status };
  const input = accountInput(account);
  if (input === undefined) return { ok: false, reason: 'invalid_input' };
  const attempt = await throttleSignIn(sql, input.email, address, sessions.now());
  if (!attempt.ok) return attempt;
  const existing = await new AccountRepository(sql).byEmail(input.email);
  const wrong = async (): Promise<AcceptedInvitation> => {
    await new SignInFailureRepository(sql).prune(attempt.since);
    return { ok: false, reason: 'wrong_credentials' };
  };
  if (existing !== undefined) {
    if (!(await verifyPassword(input.password, existing.passwordHash))) return wrong();
    await passedSignIn(sql, attempt);
    return refusable(() =>
      sql.begin(async (tx): Promise<AcceptedInvitation> => {
        const joined = await join(
          new MemberRepository(tx),
          new AuditRepository(tx),
          token,
          existing.id,
          sessions.now(),
        );
        const sessionSecret = await sessions.start(existing.id, joined.organizationId, tx);
        await new AuditRepository(tx).signedIn(existing.id, normalizeAddress(address).slice(0, 100));
        return { ok: true, slug: joined.slug, sessionSecret };
      }),
    );
  }
  const passwordHash = await hashPassword(input.password);
  const accepted = await refusable(() =>
    sql.begin(async (tx): Promise<AcceptedInvitation> => {
      const created = await new AccountRepository(tx).create({ email: input.email, name: input.name, passwordHash });
      // Made since the look-up, with a password this attempt did not check: a wrong sign-in.
      if (created === undefined) throw new Refused('wrong_credentials');
      const joined = await join(new MemberRepository(tx), new AuditRepository(tx), token, created.id, sessions.now());
      const sessionSecret = await sessions.start(created.id, joined.organizationId, tx);
      return { ok: true, slug: joined.slug, sessionSecret };
    }),
  );
  if (!accepted.ok && accepted.reason === 'wrong_credentials') return wrong();
  await new SignInFailureRepository(sql).forget(attempt.ids);
  return accepted;
}

/** The signed-in account joins; the organization becomes the session's current one. */
export async function acceptInvitation(
  sql: Sql,
  sessions: Sessions,
  token: string,
  sessionSecret: string,
): Promise<AcceptedInvitation> {
  if (!wellFormedSecret(token)) return { ok: false, reason: 'unknown' };
  const view = await sessions.view(sessionSecret);
  if (view === undefined) return { ok: false, reason: 'signed_out' };
  return refusable(() =>
    sql.begin(async (tx): Promise<AcceptedInvitation> => {
      const repository = new MemberRepository(tx);
      const joined = await join(repository, new AuditRepository(tx), token, view.account.id, sessions.now());
      await repository.setSessionOrganization(secretDigest(sessionSecret), joined.organizationId);
      return { ok: true, slug: joined.slug };
    }),
  );
}

/** Spends the invitation on the account and adds the membership, or throws why not. */
async function join(
  repository: MemberRepository,
  audit: AuditRepository,
  token: string,
  accountId: string,
  now: Date,
): Promise<{ organizationId: string; slug: string }> {
  const digest = secretDigest(token);
  const consumed = await repository.consumeInvitation(digest, accountId, now);
  if (consumed === undefined) {
    const state = lookup(await repository.invitation(digest), now);
    throw new Refused(state.status === 'open' ? 'used' : state.status);
  }
  if (!(await repository.add(consumed.organizationId, accountId, consumed.role))) throw new Refused('already_member');
  await audit.record(
    consumed.organizationId,
    'invitation.accepted',
    { kind: 'account', id: accountId },
    { invitationId: consumed.id, accountId, role: consumed.role },
  );
  await audit.memberEvent(
    consumed.organizationId,
    'member.added',
    { kind: 'account', id: accountId },
    accountId,
    consumed.role,
  );
  return consumed;
}

function lookup(row: InvitationRecord | undefined, now: Date): InvitationLookup {
  if (row === undefined) return { status: 'unknown' };
  if (row.consumedAt !== null) return { status: 'used' };
  if (row.revokedAt !== null || !row.inviterOwner) return { status: 'revoked' };
  if (row.expiresAt.getTime() <= now.getTime()) return { status: 'expired' };
  return {
    status: 'open',
    organizationName: row.organizationName,
    organizationSlug: row.organizationSlug,
    role: row.role,
    expiresAt: row.expiresAt,
  };
}

async function refusable(work: () => Promise<AcceptedInvitation>): Promise<AcceptedInvitation> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof Refused) return { ok: false, reason: error.reason };
    throw error;
  }
}
