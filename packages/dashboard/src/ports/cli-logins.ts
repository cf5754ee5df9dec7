// The storage the CLI login pages need (`hub login`: OAuth 2.0 device authorization grant,
// RFC 8628): the verification page at /device, and a person's CLI credentials on /account.
// A part of the dashboard's port (DashboardStore extends it).

/** A pending device authorization, as the person approving it sees it. */
export interface DeviceRequestView {
  /** As people type it: XXXX-XXXX, from RFC 8628's consonant alphabet. */
  userCode: string;
  /** The OAuth client: always `hub-cli`. */
  clientId: string;
  /** The host name the CLI sent (printable, at most 255 characters), or null when it sent none. */
  host: string | null;
  /** The scopes the credential will have. */
  scopes: string[];
  createdAt: Date;
  expiresAt: Date;
}

/** Too many unknown codes (typed or decided) from this account or address: refused, the code unchecked, for this long. */
export type DeviceThrottled = { reason: 'throttled'; retryAfterSeconds: number };

/**
 * Looking a code up: `throttled` after too many unknown codes from this account or address
 * (RFC 8628, section 5.1: user codes are short, so guessing is limited); `not_found` for a code
 * that is unknown, expired, or already approved, denied or redeemed.
 */
export type DeviceLookup =
  { ok: true; request: DeviceRequestView } | { ok: false; reason: 'not_found' } | ({ ok: false } & DeviceThrottled);

/**
 * `not_found`: the code is unknown, expired or decided already, alike; `forbidden`: the account is
 * not a member of that organization (whatever the code); `throttled`: as for DeviceLookup, every
 * decision that decides nothing counting as an unknown code.
 */
export type DeviceDecision = 'approved' | 'denied' | 'not_found' | 'forbidden' | DeviceThrottled;

export interface CliCredentialRow {
  id: string;
  organization: { id: string; slug: string; name: string };
  /** The host name the CLI sent when it logged in, or null. */
  host: string | null;
  /** hub_cli_ and the first 8 characters of the secret. */
  prefix: string;
  scopes: string[];
  createdAt: Date;
  lastUsedAt: Date | null;
  /** `expired`: unrevoked, but unused too long or past its lifetime (HUB_CLI_CREDENTIAL_*): the hub refuses it. */
  status: 'active' | 'revoked' | 'expired';
}

export interface CliLoginsPort {
  /**
   * The pending request with this user code (any case, with or without the hyphen, spaces
   * ignored). Unknown codes count against the account and `address` (throttling).
   */
  deviceRequest(accountId: string, userCode: string, address: string): Promise<DeviceLookup>;
  /**
   * Approves the pending request for one of the account's organizations: the CLI's next poll gets
   * a hub_cli_ credential. A refused approval counts as an unknown code.
   */
  approveDevice(accountId: string, userCode: string, organizationId: string, address: string): Promise<DeviceDecision>;
  /** Denies the pending request: the CLI's next poll gets access_denied. A refused denial counts as an unknown code. */
  denyDevice(accountId: string, userCode: string, address: string): Promise<DeviceDecision>;
  /** The account's CLI credentials in every organization, newest first, the revoked ones included. */
  cliCredentials(accountId: string): Promise<CliCredentialRow[]>;
  /** Revokes one of the account's own CLI credentials (any organization); revoking a revoked one is `revoked` again. */
  revokeCliCredential(accountId: string, credentialId: string): Promise<'revoked' | 'not_found'>;
}
