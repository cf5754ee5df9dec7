import {
  acceptableEmail,
  acceptableName,
  acceptablePassword,
  isSlug,
  normalizeEmail,
  normalizeName,
} from '@hub/schemas';

export interface NewAccount {
  name: string;
  email: string;
  password: string;
}

/** A new account's fields as stored (name and e-mail normalized), or undefined when any is unacceptable. */
export function accountInput(account: NewAccount): NewAccount | undefined {
  const input = { name: normalizeName(account.name), email: normalizeEmail(account.email), password: account.password };
  return acceptableName(input.name) && acceptableEmail(input.email) && acceptablePassword(input.password)
    ? input
    : undefined;
}

/** A new organization's fields as stored, or undefined when either is unacceptable. */
export function organizationInput(organization: {
  slug: string;
  name: string;
}): { slug: string; name: string } | undefined {
  const name = normalizeName(organization.name);
  return isSlug(organization.slug) && acceptableName(name) ? { slug: organization.slug, name } : undefined;
}

export interface NewOwner {
  account: NewAccount;
  organization: { slug: string; name: string };
}

/** The normalized setup form, or undefined when any field is unacceptable. */
export function setupInput(owner: NewAccount, organization: { slug: string; name: string }): NewOwner | undefined {
  const account = accountInput(owner);
  const org = organizationInput(organization);
  return account === undefined || org === undefined ? undefined : { account, organization: org };
}
