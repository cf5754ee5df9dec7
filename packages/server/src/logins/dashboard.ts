// The dashboard's side of `hub login`: the verification page's look-up and decision (RFC 8628),
// and a person's CLI credentials, each a use case of device-flow.ts or credentials.ts.
import type { Sql } from 'postgres';
import { DEFAULT_CLI_CREDENTIAL_EXPIRY, type CliCredentialExpiry } from '../auth/api-key.js';
import type { DashboardStore } from '../dashboard/types.js';
import { cliCredentials, revokeCliCredential } from './credentials.js';
import { decideDevice, lookUpDevice } from './device-flow.js';

type CliLoginStore = Pick<
  DashboardStore,
  'deviceRequest' | 'approveDevice' | 'denyDevice' | 'cliCredentials' | 'revokeCliCredential'
>;

export function cliLoginStore(
  sql: Sql,
  now: () => Date = () => new Date(),
  expiry: CliCredentialExpiry = DEFAULT_CLI_CREDENTIAL_EXPIRY,
): CliLoginStore {
  return {
    deviceRequest: (accountId, userCode, address) => lookUpDevice(sql, accountId, userCode, now(), address),
    approveDevice: (accountId, userCode, organizationId, address) =>
      decideDevice(sql, accountId, userCode, { approve: true, organizationId }, now(), address),
    denyDevice: (accountId, userCode, address) =>
      decideDevice(sql, accountId, userCode, { approve: false }, now(), address),
    cliCredentials: (accountId) => cliCredentials(sql, accountId, expiry),
    revokeCliCredential: (accountId, credentialId) => revokeCliCredential(sql, accountId, credentialId),
  };
}
