import { h } from 'preact';
import { KeyCreatedPage } from './key-created.js';
import { KeysPage } from './keys.js';
import { MessagePage } from './message.js';
import type {
  KeyCreatedPageProps,
  KeysPageProps,
  MessagePageProps,
  RevokeKeyPageProps,
  SetupPageProps,
  SignInPageProps,
} from './props.js';
import { renderPage } from './render.js';
import { RevokeKeyPage } from './revoke.js';
import { SetupPage } from './setup.js';
import { SignInPage } from './sign-in.js';

// Each page is a function of plain data to a whole HTML document. Their signatures name no
// Preact type, so a program that reads these declarations does not take in the DOM's types.
export type * from './props.js';
export { EMPTY_SETUP } from './props.js';
export * from './member-pages.js';
export * from './project-pages.js';
export * from './daemons-runs.js';
export * from './audit-page.js';
export * from './device-pages.js';
export * from './github-pages.js';
export * from './webhook-pages.js';

export const keysPage = (props: KeysPageProps): string => renderPage(h(KeysPage, props));
export const keyCreatedPage = (props: KeyCreatedPageProps): string => renderPage(h(KeyCreatedPage, props));
export const revokeKeyPage = (props: RevokeKeyPageProps): string => renderPage(h(RevokeKeyPage, props));
export const setupPage = (props: SetupPageProps): string => renderPage(h(SetupPage, props));
export const signInPage = (props: SignInPageProps): string => renderPage(h(SignInPage, props));
export const messagePage = (props: MessagePageProps): string => renderPage(h(MessagePage, props));
