// The storage of members, invitations and the account page, as a port (DashboardStore extends it).

export type MemberRole = 'owner' | 'member';

export interface MemberRow {
  accountId: string;
  name: string;
  email: string;
  role: MemberRole;
  /** When the account joined the organization. */
  since: Date;
}

/** What an invitation link shows before it is accepted. */
export type InvitationLookup =
  | { status: 'open'; organizationName: string; organizationSlug: string; role: MemberRole; expiresAt: Date }
  | { status: 'used' | 'expired' | 'unknown' };

export type CreatedInvitation = { ok: true; token: string; expiresAt: Date } | { ok: false; reason: 'forbidden' };

export type AcceptFailure =
  'unknown' | 'used' | 'expired' | 'email_taken' | 'already_member' | 'invalid_input' | 'signed_out';

/** An accepted invitation: the organization joined, and a new session when a new account was made. */
export type AcceptedInvitation =
  { ok: true; slug: string; sessionSecret?: string | undefined } | { ok: false; reason: AcceptFailure };

/** What a change of membership came to: the last owner stays an owner, and stays. */
export type MemberChange = 'done' | 'forbidden' | 'not_found' | 'last_owner';

/** `throttled`: too many wrong passwords (sign-ins' and this check's) for the account or from the address. */
export type PasswordChange =
  'changed' | 'wrong_password' | 'invalid_input' | 'signed_out' | { reason: 'throttled'; retryAfterSeconds: number };
export type CreatedOrganization = 'created' | 'slug_taken' | 'invalid_input' | 'signed_out';

export interface NewAccount {
  name: string;
  email: string;
  password: string;
}

export interface MembersPort {
  /** The organization's members, ordered by name, `limit` of them from `offset`. */
  members(organizationId: string, page: { offset: number; limit: number }): Promise<MemberRow[]>;
  member(organizationId: string, accountId: string): Promise<MemberRow | undefined>;
  /** An owner's one-time invitation link's secret (only its digest is stored), valid for 7 days. */
  createInvitation(accountId: string, organizationId: string, role: MemberRole): Promise<CreatedInvitation>;
  invitation(token: string): Promise<InvitationLookup>;
  /** Consumes the invitation for a new account, and starts its session in the organization. */
  acceptInvitationAsNewAccount(token: string, account: NewAccount): Promise<AcceptedInvitation>;
  /** Consumes the invitation for the session's account, and makes the organization its current one. */
  acceptInvitation(token: string, sessionSecret: string): Promise<AcceptedInvitation>;
  removeMember(accountId: string, organizationId: string, memberId: string): Promise<MemberChange>;
  changeRole(accountId: string, organizationId: string, memberId: string, role: MemberRole): Promise<MemberChange>;
  leaveOrganization(accountId: string, organizationId: string): Promise<MemberChange>;
  /**
   * Checks the current password, sets the new one, and ends the account's other sessions. A
   * wrong current password counts as a failed sign-in of the account and from `address`.
   */
  changePassword(sessionSecret: string, current: string, next: string, address: string): Promise<PasswordChange>;
  /** A new organization owned by the session's account, made its current one. */
  createOrganization(sessionSecret: string, organization: { slug: string; name: string }): Promise<CreatedOrganization>;
}
