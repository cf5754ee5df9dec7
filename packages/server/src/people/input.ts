import { acceptablePassword } from './passwords.js';

/** Organization slugs, as the organizations table's check (migrations/001_initial.sql). */
export const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;
const EMAIL = /^[^\s@]+@[^\s@]+$/u;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const CONTROL = /\p{Cc}/u;

/** An e-mail as stored: NFC, trimmed, lower-cased. */
export function normalizeEmail(email: string): string {
  return email.normalize('NFC').trim().toLowerCase();
}

/** A normalized e-mail that looks like one: something@somewhere, 3 to 254 characters. */
export function acceptableEmail(email: string): boolean {
  return email.isWellFormed() && email.length >= 3 && email.length <= 254 && EMAIL.test(email) && !CONTROL.test(email);
}

/** A name as stored: NFC, trimmed. */
export function normalizeName(name: string): string {
  return name.normalize('NFC').trim();
}

/** 1 to 200 characters (code points), no control characters. */
export function acceptableName(name: string): boolean {
  const length = [...name].length;
  return name.isWellFormed() && length >= 1 && length <= 200 && !CONTROL.test(name);
}

export interface NewOwner {
  account: { name: string; email: string; password: string };
  organization: { slug: string; name: string };
}

/** The normalized setup form, or undefined when any field is unacceptable. */
export function setupInput(
  owner: { name: string; email: string; password: string },
  organization: { slug: string; name: string },
): NewOwner | undefined {
  const account = { name: normalizeName(owner.name), email: normalizeEmail(owner.email), password: owner.password };
  const org = { slug: organization.slug, name: normalizeName(organization.name) };
  const ok =
    acceptableName(account.name) &&
    acceptableEmail(account.email) &&
    account.password.isWellFormed() &&
    acceptablePassword(account.password) &&
    SLUG.test(org.slug) &&
    acceptableName(org.name);
  return ok ? { account, organization: org } : undefined;
}

/** Ids are UUIDs: anything else names nothing (and is never sent to PostgreSQL, which would throw). */
export function isUuid(id: string): boolean {
  return UUID.test(id);
}
