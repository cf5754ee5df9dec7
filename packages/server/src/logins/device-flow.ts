// `hub login`'s use cases (OAuth 2.0 device authorization grant, RFC 8628): a terminal starts a
// request and polls it; a person looks its user code up on the verification page and approves or
// denies it. Every step is in PostgreSQL, so any instance answers any of them.
import { randomBytes } from 'node:crypto';
import type { Sql } from 'postgres';
import { formatUserCode, isUuid, parseUserCode } from '@hub/schemas';
import { digest, displayPrefix, generateToken } from '../auth/secrets.js';
import { countAttempt, SignInFailureRepository, THROTTLE_WINDOW_MS } from '../people/index.js';
import { DeviceAuthorizationRepository, type PendingDevice } from './sql.js';
import { newUserCode } from './user-code.js';

export const CLI_CLIENT_ID = 'hub-cli';

/** RFC 8628 leaves these to the server; the issue caps the lifetime at 10 minutes. */
export const DEFAULT_DEVICE_LOGIN = { lifetimeSeconds: 600, intervalSeconds: 5 } as const;
export type DeviceLoginTiming = { lifetimeSeconds: number; intervalSeconds: number };

/**
 * Unknown codes one account may type within THROTTLE_WINDOW_MS (RFC 8628, section 5.1): with
 * 2.6 × 10^10 codes, guessing a live one stays hopeless, and a person who mistypes is not stopped.
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

/**
 * Looking a typed code up: `throttled` after too many unknown codes from this account;
 * `not_found` for a code that is unknown, expired, or already decided.
 */
export type DeviceLookup = { ok: true; request: PendingDevice } | { ok: false; reason: 'not_found' | 'throttled' };

/** The pending request of a typed user code (any case, hyphen and spaces ignored), as people read it. */
export async function lookUpDevice(sql: Sql, accountId: string, typed: string, at: Date): Promise<DeviceLookup> {
  if (!isUuid(accountId)) return { ok: false, reason: 'not_found' };
  const since = new Date(at.getTime() - THROTTLE_WINDOW_MS);
  // Counted before the look-up, as sign-ins are: concurrent guesses cannot slip past the limit.
  const attempt = await countAttempt(sql, [{ key: `device:${accountId}`, limit: USER_CODE_GUESSES }], at, since);
  if ('retryAt' in attempt) return { ok: false, reason: 'throttled' };
  const failures = new SignInFailureRepository(sql);
  const code = parseUserCode(typed);
  const request = code === undefined ? undefined : await new DeviceAuthorizationRepository(sql).pending(code);
  if (request === undefined) {
    await failures.prune(since);
    return { ok: false, reason: 'not_found' };
  }
  await failures.forget(attempt.ids);
  return { ok: true, request: { ...request, userCode: formatUserCode(request.userCode) } };
}

/** `forbidden`: the account is not a member of that organization. */
export type DeviceDecision = 'approved' | 'denied' | 'not_found' | 'forbidden';

/** Approves a pending request for one of the account's organizations, or denies it. */
export async function decideDevice(
  sql: Sql,
  accountId: string,
  typed: string,
  decision: { approve: true; organizationId: string } | { approve: false },
): Promise<DeviceDecision> {
  const code = parseUserCode(typed);
  if (!isUuid(accountId) || code === undefined) return 'not_found';
  if (decision.approve && !isUuid(decision.organizationId)) return 'forbidden';
  const decided = await new DeviceAuthorizationRepository(sql).decide(code, accountId, decision);
  if (decided !== 'done') return decided;
  return decision.approve ? 'approved' : 'denied';
}
