import { isUuid } from '@hub/schemas';
// The people part of the dashboard's store: each function of the port calls one use case.
import type { Sql } from 'postgres';
import type { DashboardStore, DashboardStoreOptions, MembersPort } from '../dashboard/types.js';
import {
  acceptInvitation,
  acceptInvitationAsNewAccount,
  createInvitation,
  invitation,
  invitations,
  revokeInvitation,
} from './invitations.js';
import { changeRole, leaveOrganization, member, members, removeMember } from './members.js';
import { Sessions } from './sessions.js';
import { changePassword, createOrganization } from './settings.js';
import { completeSetup, issueSetupToken, setupPending } from './setup.js';
import { signIn } from './sign-in.js';

type PeopleStore = Pick<
  DashboardStore,
  | 'setupPending'
  | 'issueSetupToken'
  | 'completeSetup'
  | 'signIn'
  | 'session'
  | 'signOut'
  | 'switchOrganization'
  | keyof MembersPort
>;

export function peopleStore(sql: Sql, options: DashboardStoreOptions = {}): PeopleStore {
  const sessions = new Sessions(sql, options);
  return {
    setupPending: () => setupPending(sql),
    issueSetupToken: () => issueSetupToken(sql),
    completeSetup: (token, owner, organization) => completeSetup(sql, sessions, token, owner, organization),
    signIn: (email, password, address) => signIn(sql, sessions, email, password, address),
    session: (secret) => sessions.view(secret),
    signOut: (secret) => sessions.end(secret),
    switchOrganization: (secret, slug) => sessions.switchOrganization(secret, slug),
    members: (organizationId, page) => members(sql, organizationId, page),
    async ownerCount(organizationId) {
      if (!isUuid(organizationId)) return 0;
      const [row] = await sql<{ owners: number }[]>`
        select count(*)::int as owners from organization_members where organization_id = ${organizationId} and role = 'owner'`;
      return row?.owners ?? 0;
    },
    member: (organizationId, accountId) => member(sql, organizationId, accountId),
    createInvitation: (accountId, organizationId, role) =>
      createInvitation(sql, sessions, accountId, organizationId, role),
    invitation: (token) => invitation(sql, sessions, token),
    acceptInvitationAsNewAccount: (token, account, address) =>
      acceptInvitationAsNewAccount(sql, sessions, token, account, address),
    invitations: (organizationId) => invitations(sql, sessions, organizationId),
    revokeInvitation: (accountId, organizationId, invitationId) =>
      revokeInvitation(sql, sessions, accountId, organizationId, invitationId),
    acceptInvitation: (token, sessionSecret) => acceptInvitation(sql, sessions, token, sessionSecret),
    removeMember: (accountId, organizationId, memberId) => removeMember(sql, accountId, organizationId, memberId),
    changeRole: (accountId, organizationId, memberId, role) =>
      changeRole(sql, accountId, organizationId, memberId, role),
    leaveOrganization: (accountId, organizationId) => leaveOrganization(sql, accountId, organizationId),
    changePassword: (sessionSecret, current, next, address) =>
      changePassword(sql, sessions, sessionSecret, current, next, address),
    createOrganization: (sessionSecret, organization) => createOrganization(sql, sessions, sessionSecret, organization),
  };
}
