// `hub login`'s use cases (OAuth 2.0 device authorization grant, RFC 8628): a terminal starts a
// request and polls it; a person looks its user code up on the verification page and approves or
// denies it. Every step is in PostgreSQL, so any instance answers any of them.
import { randomBytes } from 'node:crypto';
import type { Sql } from 'postgres';
import { formatUserCode, isUuid, parseUserCode } from '@hub/schemas';
import { digest, displayPrefix, generateToken } from '../auth/secrets.js';
import {
  addressThrottleKey,
  countAttempt,
  secondsUntil,
  SignInFailureRepository,
  THROTTLE_PER_ADDRESS,
  THROTTLE_WINDOW_MS,
} from '../people/index.js';
import { DeviceAuthorizationRepository, type PendingDevice } from './sql.js';
import { newUserCode } from './user-code.js';

export const CLI_CLIENT_ID = 'hub-cli';

/** RFC 8628 leaves these to the server; the issue caps the lifetime at 10 minutes. */
export const DEFAULT_DEVICE_LOGIN = { lifetimeSeconds: 600, intervalSeconds: 5 } as const;
export type DeviceLoginTiming = { lifetimeSeconds: number; intervalSeconds: number };

/**
 * Unknown codes one account may type or decide within THROTTLE_WINDOW_MS (RFC 8628, section 5.1):
 * with 2.6 × 10^10 codes, guessing a live one stays hopeless, and a person who mistypes is not
 * stopped. The address counts too, with sign-in's THROTTLE_PER_ADDRESS.
 */
export const USER_CODE_GUESSES = 10;

/** A new request: the device code goes to the terminal only (its digest is stored), the user code as people read it. */
export interface StartedDeviceAuthorization {
  deviceCode: string;
  userCode: string;
}

/** Stores a new request for the CLI's scopes, from `host` (the name it sent, or null). */
export async function startDeviceAuthorization(
  sql: Sql,
  request: { scopes: string[]; host: string | null },
  timing: DeviceLoginTiming,
): Promise<StartedDeviceAuthorization> {
  const devices = new DeviceAuthorizationRepository(sql);
  const deviceCode = randomBytes(32).toString('base64url');
  await devices.prune();
  // A user code already taken by an unsettled request is drawn again; with 2.6 × 10^10
  // codes a second draw is rare and a third rarer still.
  for (let attempt = 0; ; attempt++) {
    const userCode = newUserCode();
    const created = await devices.create({
      deviceDigest: digest(deviceCode),
      userCode,
      clientId: CLI_CLIENT_ID,
      ...request,
      lifetimeSeconds: timing.lifetimeSeconds,
      intervalSeconds: timing.intervalSeconds,
    });
    if (created) return { deviceCode, userCode: formatUserCode(userCode) };
    if (attempt === 5) throw new Error('no free user code after 6 draws');
  }
}

/** What a poll of the token endpoint finds, in RFC 8628's words (section 3.5). */
export type PollOutcome =
  | { kind: 'issued'; token: string; scopes: string[] }
  | { kind: 'authorization_pending' | 'slow_down' | 'access_denied' | 'expired_token' | 'invalid_grant' };

/**
 * One poll of the token endpoint, in one transaction holding the request's row: an approved
 * request becomes a CLI credential (if its approver is still a member) and is redeemed, once.
 * A pending one polled sooner than its interval after the last poll is `slow_down`, and its
 * interval grows by 5 s.
 */
export async function pollDeviceAuthorization(sql: Sql, deviceCode: string): Promise<PollOutcome> {
  const token = generateToken('cli');
  const credential = { digest: digest(token), prefix: displayPrefix(token, 'cli') };
  return sql.begin(async (tx): Promise<PollOutcome> => {
    const devices = new DeviceAuthorizationRepository(tx);
    const row = await devices.lockForPoll(digest(deviceCode));
    if (row === undefined || row.clientId !== CLI_CLIENT_ID || row.status === 'redeemed')
      return { kind: 'invalid_grant' };
    if (row.expired) return { kind: 'expired_token' };
    if (row.status === 'denied') return { kind: 'access_denied' };
    if (row.status === 'pending') {
      await devices.polled(row.id, row.early);
      return { kind: row.early ? 'slow_down' : 'authorization_pending' };
    }
    if (!(await devices.approverIsMember(row))) {
      await devices.deny(row.id);
      return { kind: 'access_denied' };
    }
    await devices.redeem(row, credential);
    return { kind: 'issued', token, scopes: row.scopes };
  });
}

/** Past the limits of guesses: refused unchecked until `retryAfterSeconds` have passed. */
export type DeviceThrottled = { reason: 'throttled'; retryAfterSeconds: number };

/**
 * Looking a typed code up: `throttled` after too many unknown codes from this account or
 * address; `not_found` for a code that is unknown, expired, or already decided.
 */
export type DeviceLookup =
  { ok: true; request: PendingDevice } | { ok: false; reason: 'not_found' } | ({ ok: false } & DeviceThrottled);

/**
 * Counts a guess at a user code before it is checked, as sign-ins are counted (concurrent guesses
 * cannot slip past the limit): under the account's `device:` key and the address's sign-in key.
 * The caller forgets it when the code turns out right.
 */
async function countGuess(
  sql: Sql,
  accountId: string,
  address: string,
  at: Date,
): Promise<{ ids: string[]; since: Date } | DeviceThrottled> {
  const since = new Date(at.getTime() - THROTTLE_WINDOW_MS);
  const attempt = await countAttempt(
    sql,
    [
      { key: `device:${accountId}`, limit: USER_CODE_GUESSES },
      { key: addressThrottleKey(address), limit: THROTTLE_PER_ADDRESS },
    ],
    at,
    since,
  );
  if ('retryAt' in attempt) return { reason: 'throttled', retryAfterSeconds: secondsUntil(attempt.retryAt, at) };
  return { ids: attempt.ids, since };
}

/** The pending request of a typed user code (any case, hyphen and spaces ignored), as people read it. */
export async function lookUpDevice(
  sql: Sql,
  accountId: string,
  typed: string,
  at: Date,
  address: string,
): Promise<DeviceLookup> {
  if (!isUuid(accountId)) return { ok: false, reason: 'not_found' };
  const guess = await countGuess(sql, accountId, address, at);
  if ('reason' in guess) return { ok: false, ...guess };
  const failures = new SignInFailureRepository(sql);
  const code = parseUserCode(typed);
  const request = code === undefined ? undefined : await new DeviceAuthorizationRepository(sql).pending(code);
  if (request === undefined) {
    await failures.prune(guess.since);
    return { ok: false, reason: 'not_found' };
  }
  await failures.forget(guess.ids);
  return { ok: true, request: { ...request, userCode: formatUserCode(request.userCode) } };
}

/**
 * `not_found`: the code is unknown, expired, or decided already (by anyone), alike;
 * `forbidden`: approving for an organization the account is not a member of, whatever the code
 * (so that neither answer tells whether a code is live); `throttled`: too many refused decisions
 * and unknown codes, from this account or address.
 */
export type DeviceDecision = 'approved' | 'denied' | 'not_found' | 'forbidden' | DeviceThrottled;

/**
 * Approves a pending request for one of the account's organizations, or denies it. Every
 * decision is counted as a guess at its code before anything is looked up; only one that decides
 * a request is forgotten (the limits are the verification page's).
 */
export async function decideDevice(
  sql: Sql,
  accountId: string,
  typed: string,
  decision: { approve: true; organizationId: string } | { approve: false },
  at: Date,
  address: string,
): Promise<DeviceDecision> {
  if (!isUuid(accountId)) return 'not_found';
  const guess = await countGuess(sql, accountId, address, at);
  if ('reason' in guess) return guess;
  const code = parseUserCode(typed);
  const decided =
    code === undefined
      ? 'not_found'
      : decision.approve && !isUuid(decision.organizationId)
        ? 'forbidden'
        : await new DeviceAuthorizationRepository(sql).decide(code, accountId, decision);
  const failures = new SignInFailureRepository(sql);
  if (decided !== 'done') {
    await failures.prune(guess.since);
    return decided;
  }
  await failures.forget(guess.ids);
  return decision.approve ? 'approved' : 'denied';
}
