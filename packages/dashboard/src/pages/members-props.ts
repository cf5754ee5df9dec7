// The data of the members, invitation and account pages: plain values, loaded by the routes.
import type { CliCredentialRow } from '../ports/cli-logins.js';
import type { InvitationRow, MemberRole, MemberRow } from '../ports/members.js';
import type { SessionView } from '../store.js';

export interface NoticeValue {
  text: string;
  kind: 'error' | 'notice';
}

export interface MembersPageProps {
  session: SessionView;
  members: MemberRow[];
  /** The organization's live invitations (not accepted, revoked or expired). */
  invitations: InvitationRow[];
  /** 1-based; `next` says whether a further page exists. */
  page: number;
  next: boolean;
  /** The organization's owners: with one, that owner is not offered a step down, a removal or leaving. */
  owners: number;
  notice?: NoticeValue | undefined;
}

export interface RemoveMemberPageProps {
  session: SessionView;
  member: Pick<MemberRow, 'accountId' | 'name' | 'email'>;
  /** The names of the active daemons the member enrolled: their removal retires them. */
  daemons?: string[] | undefined;
}

export interface LeavePageProps {
  session: SessionView;
  /** The names of the active daemons the person enrolled: leaving retires them. */
  daemons?: string[] | undefined;
  /** The organization's only owner: told why leaving is not offered, with no button that would fail. */
  soleOwner?: boolean;
}

export interface InvitationCreatedPageProps {
  session: SessionView;
  link: string;
  role: MemberRole;
  expiresAt: Date;
}

export interface InvitationPageProps {
  token: string;
  organizationName: string;
  role: MemberRole;
  expiresAt: Date;
  /** Signed in: the invitation is accepted into this account. */
  session?: SessionView | undefined;
  values: { name: string; email: string };
  message?: string | undefined;
}

export interface AccountPageProps {
  session: SessionView;
  password?: NoticeValue | undefined;
  organization?: { slug: string; name: string; message: string } | undefined;
  /** The account's CLI logins in every organization, newest first. */
  cliLogins: CliCredentialRow[];
  cliNotice?: NoticeValue | undefined;
}
