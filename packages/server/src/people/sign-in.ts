import { isIPv4 } from 'node:net';
import type { Sql } from 'postgres';
import { addressKey as throttledAddress } from '../auth/throttle.js';
import { AccountRepository } from './sql/accounts.js';
import { AuditRepository } from '../audit/index.js';
import { SignInFailureRepository } from './sql/sign-in-failures.js';
import { normalizeEmail, PASSWORD_LENGTH } from '@hub/schemas';
import { verifyNothing, verifyPassword } from './passwords.js';
import type { Sessions } from './sessions.js';

/** Failures counted within this window... */
export const THROTTLE_WINDOW_MS = 15 * 60 * 1000;
/** ...after this many for one e-mail, its sign-ins are refused until the window has moved on. */
export const THROTTLE_PER_ACCOUNT = 5;
/** ...and after this many from one address (shared addresses make it larger than the account's). */
export const THROTTLE_PER_ADDRESS = 20;

export type SignInResult =
  | { ok: true; sessionSecret: string }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'throttled'; retryAfterSeconds: number };

/**
 * Checks an e-mail and password. A wrong e-mail and a wrong password answer alike and take as
 * long (an unknown e-mail still costs one scrypt). Once an e-mail or an address has had too
 * many failures, the answer is `throttled` without the password being checked.
 */
export async function signIn(
  sql: Sql,
  sessions: Sessions,
  email: string,
  password: string,
  address: string,
): Promise<SignInResult> {
  const normalized = normalizeEmail(email);
  const from = normalizeAddress(address);
  const now = sessions.now();
  const attempt = await throttleSignIn(sql, normalized, address, now);
  if (!attempt.ok) return attempt;
  const { since } = attempt;
  const failures = new SignInFailureRepository(sql);
  const accounts = new AccountRepository(sql);
  const account = await accounts.byEmail(normalized);
  const right =
    [...password].length <= PASSWORD_LENGTH.max &&
    (account === undefined ? await verifyNothing(password) : await verifyPassword(password, account.passwordHash));
  if (!right || account === undefined) {
    await failures.prune(since);
    return { ok: false, reason: 'invalid' };
  }
  await passedSignIn(sql, attempt);
  const organization = (await accounts.memberships(account.id))[0];
  // The session and its sign-in event (in each of the account's organizations) commit together.
  const sessionSecret = await sql.begin(async (tx) => {
    const secret = await sessions.start(account.id, organization?.organizationId, tx);
    await new AuditRepository(tx).signedIn(account.id, from.slice(0, 100));
    return secret;
  });
  return { ok: true, sessionSecret };
}

/**
 * Counts a sign-in's attempt (an invitation's sign-up with an e-mail is one too) under its
 * e-mail's and its address's keys before the password is checked; `throttled` when either is
 * over its limit (then nothing is recorded: the throttle lifts a window after the last real
 * failure). A right password then clears the e-mail's failures and forgets the attempt
 * (`passedSignIn`); a wrong one leaves it counted.
 */
export async function throttleSignIn(
  sql: Sql,
  normalizedEmail: string,
  address: string,
  now: Date,
): Promise<
  | { ok: true; accountKey: string; ids: string[]; since: Date }
  | { ok: false; reason: 'throttled'; retryAfterSeconds: number }
> {
  const accountKey = `account:${normalizedEmail}`;
  const addressKey = addressThrottleKey(address);
  const since = new Date(now.getTime() - THROTTLE_WINDOW_MS);
  const attempt = await countAttempt(
    sql,
    [
      { key: accountKey, limit: THROTTLE_PER_ACCOUNT },
      { key: addressKey, limit: THROTTLE_PER_ADDRESS },
    ],
    now,
    since,
  );
  if ('retryAt' in attempt)
    return {
      ok: false,
      reason: 'throttled',
      retryAfterSeconds: secondsUntil(attempt.retryAt, now),
    };
  return { ok: true, accountKey, ids: attempt.ids, since };
}

/** An attempt of throttleSignIn turned out right: the e-mail's failures are cleared, the attempt forgotten. */
export async function passedSignIn(sql: Sql, attempt: { accountKey: string; ids: string[] }): Promise<void> {
  const failures = new SignInFailureRepository(sql);
  await failures.clear(attempt.accountKey);
  await failures.forget(attempt.ids);
}

/**
 * Records an attempt under each key unless one of them is over its limit (see
 * SignInFailureRepository.recordUnlessOver), in a transaction of its own: the keys' locks last
 * until it ends. Sign-ins count with it, and so do the user codes typed on the device page.
 */
export function countAttempt(
  sql: Sql,
  keys: { key: string; limit: number }[],
  at: Date,
  since: Date,
): Promise<{ ids: string[] } | { retryAt: Date }> {
  return sql.begin((tx) => new SignInFailureRepository(tx).recordUnlessOver(keys, at, since));
}

/**
 * The throttle's key of an address: counted as the hub's other throttles count one (IPv6 by its
 * /64). Sign-ins, current passwords, and device codes typed or decided share it.
 */
export function addressThrottleKey(address: string): string {
  return `address:${throttledAddress(address)}`;
}

/** Retry-After of a throttled guess: whole seconds until `retryAt`, at least 1. */
export function secondsUntil(retryAt: Date, now: Date): number {
  return Math.max(1, Math.ceil((retryAt.getTime() - now.getTime()) / 1000));
}

/** An IPv4 address seen through an IPv6 socket (`::ffff:192.0.2.1`) counts as the IPv4 one. */
export function normalizeAddress(address: string): string {
  const mapped = /^::ffff:(.+)$/i.exec(address);
  return mapped !== null && isIPv4(mapped[1] as string) ? (mapped[1] as string) : address.toLowerCase();
}
