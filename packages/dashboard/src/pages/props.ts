// The data each page renders: plain values, loaded by the routes.
import type { ApiKeyRow, SessionView } from '../store.js';

export interface KeyCreatedPageProps {
  session: SessionView;
  name: string;
  prefix: string;
  secret: string;
}

export interface KeyFormValues {
  name: string;
  scopes: string[];
  message?: string | undefined;
}

export interface KeysPageProps {
  session: SessionView;
  keys: ApiKeyRow[];
  /** The scopes a key can hold (the hub's), one checkbox each. */
  scopes: readonly string[];
  /** Which page of the list `keys` is (50 a page), and whether another follows. */
  pages?: { page: number; more: boolean } | undefined;
  form?: KeyFormValues | undefined;
}

export interface MessagePageProps {
  title: string;
  message: string;
  link?: { href: string; text: string } | undefined;
  session?: SessionView | undefined;
}

export interface RevokeKeyPageProps {
  session: SessionView;
  apiKey: Pick<ApiKeyRow, 'id' | 'name' | 'prefix'>;
}

export interface SetupValues {
  name: string;
  email: string;
  slug: string;
  organizationName: string;
}

export interface SetupPageProps {
  token: string;
  values: SetupValues;
  message?: string | undefined;
}

export const EMPTY_SETUP: SetupValues = { name: '', email: '', slug: '', organizationName: '' };

export interface SignInPageProps {
  email: string;
  /** A path on this site to return to after signing in (already checked by `safeNext`). */
  next?: string | undefined;
  message?: string | undefined;
}
