/** One text field of a urlencoded body (the first, when it came twice); '' when absent. */
export function field(body: unknown, name: string): string {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first : '';
}

/** Every value of a repeated field (checkboxes), in order. */
export function fields(body: unknown, name: string): string[] {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  const all = Array.isArray(value) ? value : [value];
  return all.filter((item): item is string => typeof item === 'string');
}

const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;
const EMAIL = /^[^\s@]+@[^\s@]+$/;
export const PASSWORD_MIN = 12;
const PASSWORD_MAX = 1024;

/** A display name as the API takes it: not blank, at most 200 characters, no NUL or lone surrogate. */
export function nameProblem(label: string, name: string): string | undefined {
  if (name.trim() === '') return `${label} is required.`;
  if (name.length > 200) return `${label} is longer than 200 characters.`;
  if (name.includes('\u0000') || !name.isWellFormed()) return `${label} contains a character the hub cannot store.`;
  return undefined;
}

export interface SetupInput {
  name: string;
  email: string;
  password: string;
  slug: string;
  organizationName: string;
}

/** What is wrong with the setup form, in the order of its fields; undefined when nothing is. */
export function setupProblem(input: SetupInput): string | undefined {
  return (
    nameProblem('Your name', input.name) ??
    (EMAIL.test(input.email) && input.email.length <= 254
      ? undefined
      : 'Enter an e-mail address such as ada@example.com.') ??
    (input.password.length < PASSWORD_MIN ? `The password needs at least ${PASSWORD_MIN} characters.` : undefined) ??
    (input.password.length > PASSWORD_MAX ? `The password is longer than ${PASSWORD_MAX} characters.` : undefined) ??
    (SLUG.test(input.slug)
      ? undefined
      : 'The slug takes lowercase letters, digits and hyphens, and starts with a letter or digit (at most 63).') ??
    nameProblem("The organization's name", input.organizationName)
  );
}

/** What is wrong with a new key's name and scopes; undefined when nothing is. */
export function keyProblem(name: string, scopes: string[], allowed: readonly string[]): string | undefined {
  return (
    nameProblem("The key's name", name) ??
    (scopes.length === 0 ? 'Choose at least one scope.' : undefined) ??
    (scopes.every((scope) => allowed.includes(scope)) ? undefined : 'Choose scopes from the list.')
  );
}
