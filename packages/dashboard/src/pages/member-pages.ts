import { h } from 'preact';
import { AccountPage } from './account.js';
import { InvitationCreatedPage, InvitationPage } from './invitation.js';
import { LeavePage, MembersPage, RemoveMemberPage } from './members.js';
import type {
  AccountPageProps,
  InvitationCreatedPageProps,
  InvitationPageProps,
  LeavePageProps,
  MembersPageProps,
  RemoveMemberPageProps,
} from './members-props.js';
import { renderPage } from './render.js';

// The members, invitation and account pages, as functions of plain data to HTML documents.
export type * from './members-props.js';

export const membersPage = (props: MembersPageProps): string => renderPage(h(MembersPage, props));
export const removeMemberPage = (props: RemoveMemberPageProps): string => renderPage(h(RemoveMemberPage, props));
export const leavePage = (props: LeavePageProps): string => renderPage(h(LeavePage, props));
export const invitationCreatedPage = (props: InvitationCreatedPageProps): string =>
  renderPage(h(InvitationCreatedPage, props));
export const invitationPage = (props: InvitationPageProps): string => renderPage(h(InvitationPage, props));
export const accountPage = (props: AccountPageProps): string => renderPage(h(AccountPage, props));
