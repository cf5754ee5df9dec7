// The dashboard's side of `hub login`: the verification page's look-up and decision (RFC 8628),
// and a person's CLI credentials.
import type { Sql } from 'postgres';
import { ApiKeyRepository } from '../keys/sql.js';
import { DeviceAuthorizationRepository } from './sql.js';
import { SignInFailureRepository } from '../people/sql/sign-in-failures.js';
import { formatUserCode, isUuid, parseUserCode } from '@hub/schemas';
import { THROTTLE_WINDOW_MS } from '../people/sign-in.js';
import type { DashboardStore } from '../dashboard/types.js';

/**
 * Unknown codes one account may type within THROTTLE_WINDOW_MS (RFC 8628, section 5.1): with
 * 2.6 × 10^10 codes, guessing a live one stays hopeless, and a person who mistypes is not stopped.
 */
export const USER_CODE_GUESSES = 10;

type CliLoginStore = Pick<
  DashboardStore,
  'deviceRequest' | 'approveDevice' | 'denyDevice' | 'cliCredentials' | 'revokeCliCredential'
>;

export function cliLoginStore(sql: Sql, now: () => Date = () => new Date()): CliLoginStore {
  const devices = new DeviceAuthorizationRepository(sql);
  const keys = new ApiKeyRepository(sql);
  return {
    async deviceRequest(accountId, userCode) {
      if (!isUuid(accountId)) return { ok: false, reason: 'not_found' };
      const failures = new SignInFailureRepository(sql);
      const at = now();
      const since = new Date(at.getTime() - THROTTLE_WINDOW_MS);
      // Counted before the look-up, as sign-ins are: concurrent guesses cannot slip past the limit.
      const attempt = await failures.recordUnlessOver(
        [{ key: `device:${accountId}`, limit: USER_CODE_GUESSES }],
        at,
        since,
      );
      if ('retryAt' in attempt) return { ok: false, reason: 'throttled' };
      const code = parseUserCode(userCode);
      const request = code === undefined ? undefined : await devices.pending(code);
      if (request === undefined) {
        await failures.prune(since);
        return { ok: false, reason: 'not_found' };
      }
      await failures.forget(attempt.ids);
      return { ok: true, request: { ...request, userCode: formatUserCode(request.userCode) } };
    },

    async approveDevice(accountId, userCode, organizationId) {
      const code = parseUserCode(userCode);
      if (!isUuid(accountId) || code === undefined) return 'not_found';
      if (!isUuid(organizationId)) return 'forbidden';
      const decided = await devices.decide(code, accountId, { approve: true, organizationId });
      return decided === 'done' ? 'approved' : decided;
    },

    async denyDevice(accountId, userCode) {
      const code = parseUserCode(userCode);
      if (!isUuid(accountId) || code === undefined) return 'not_found';
      const decided = await devices.decide(code, accountId, { approve: false });
      return decided === 'done' ? 'denied' : decided;
    },

    cliCredentials: async (accountId) => (isUuid(accountId) ? keys.cliCredentials(accountId) : []),

    /** The person's own credential, through the hub's one revocation (its enrollment tokens expire with it). */
    async revokeCliCredential(accountId, credentialId) {
      if (!isUuid(accountId) || !isUuid(credentialId)) return 'not_found';
      const organizationId = await keys.cliCredentialOrganization(accountId, credentialId);
      if (organizationId === undefined) return 'not_found';
      const revoked = await keys.revoke(
        organizationId,
        credentialId,
        { kind: 'account', id: accountId },
        { kind: 'cli', accountId },
      );
      return revoked ? 'revoked' : 'not_found';
    },
  };
}
