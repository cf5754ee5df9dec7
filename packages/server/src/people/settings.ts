import type { Sql } from 'postgres';
import { AuditRepository } from '../audit/index.js';
import { ApiKeyRepository } from '../keys/index.js';
import { MemberRepository } from './sql/members.js';
import { createOrganization as newOrganization } from '../projects/index.js';
import { acceptablePassword, normalizeEmail, PASSWORD_LENGTH } from '@hub/schemas';
import { organizationInput } from './input.js';
import { hashPassword, verifyPassword } from './passwords.js';
import { secretDigest } from './secrets.js';
import { passedSignIn, throttleSignIn } from './sign-in.js';
import { SignInFailureRepository } from './sql/sign-in-failures.js';
import type { Sessions } from './sessions.js';
import type { CreatedOrganization, PasswordChange } from '../dashboard/types.js';

/**
 * Checks the current password, then sets the new one, ends every other session of the account
 * and revokes all its CLI credentials (in every organization: `hub login` again) in one
 * transaction, recorded in each of its organizations; the session that asked stays. A wrong
 * current password is a failed sign-in (the account's and the address's keys, counted before the
 * check): past the limits the answer is `throttled`, the password unchecked, so a stolen session
 * cannot guess it.
 */
export async function changePassword(
  sql: Sql,
  sessions: Sessions,
  sessionSecret: string,
  current: string,
  next: string,
  address: string,
): Promise<PasswordChange> {
  const view = await sessions.view(sessionSecret);
  if (view === undefined) return 'signed_out';
  if (!acceptablePassword(next)) return 'invalid_input';
  const attempt = await throttleSignIn(sql, normalizeEmail(view.account.email), address, sessions.now());
  if (!attempt.ok) return { reason: 'throttled', retryAfterSeconds: attempt.retryAfterSeconds };
  const stored = await new MemberRepository(sql).passwordHash(view.account.id);
  if (stored === undefined || [...current].length > PASSWORD_LENGTH.max || !(await verifyPassword(current, stored))) {
    await new SignInFailureRepository(sql).prune(attempt.since);
    return 'wrong_password';
  }
  await passedSignIn(sql, attempt);
  const passwordHash = await hashPassword(next);
  await sql.begin(async (tx) => {
    const repository = new MemberRepository(tx);
    await repository.setPassword(view.account.id, passwordHash);
    await repository.endOtherSessions(view.account.id, secretDigest(sessionSecret), sessions.now());
    await new ApiKeyRepository(tx).revokeCliCredentialsOf(view.account.id, { kind: 'account', id: view.account.id });
    await new AuditRepository(tx).passwordChanged(view.account.id);
  });
  return 'changed';
}

/** A new organization, its creator its owner, and the session's current organization. */
export async function createOrganization(
  sql: Sql,
  sessions: Sessions,
  sessionSecret: string,
  organization: { slug: string; name: string },
): Promise<CreatedOrganization> {
  const view = await sessions.view(sessionSecret);
  if (view === undefined) return 'signed_out';
  const input = organizationInput(organization);
  if (input === undefined) return 'invalid_input';
  return sql.begin(async (tx): Promise<CreatedOrganization> => {
    const creation = await newOrganization(tx, input);
    if (!creation.ok) return 'slug_taken';
    const created = creation.organization;
    const repository = new MemberRepository(tx);
    await repository.add(created.id, view.account.id, 'owner');
    await new AuditRepository(tx).memberEvent(
      created.id,
      'member.added',
      { kind: 'account', id: view.account.id },
      view.account.id,
      'owner',
    );
    await repository.setSessionOrganization(secretDigest(sessionSecret), created.id);
    return 'created';
  });
}
