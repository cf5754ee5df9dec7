import { nameProblem, PASSWORD_MIN } from './forms.js';

const EMAIL = /^[^\s@]+@[^\s@]+$/;
const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;
const PASSWORD_MAX = 1024;

function passwordProblem(password: string): string | undefined {
  if (password.length < PASSWORD_MIN) return `The password needs at least ${PASSWORD_MIN} characters.`;
  if (password.length > PASSWORD_MAX) return `The password is longer than ${PASSWORD_MAX} characters.`;
  return undefined;
}

/** What is wrong with an invitation's new account; undefined when nothing is. */
export function newAccountProblem(input: { name: string; email: string; password: string }): string | undefined {
  return (
    nameProblem('Your name', input.name) ??
    (EMAIL.test(input.email) && input.email.length <= 254
      ? undefined
      : 'Enter an e-mail address such as ada@example.com.') ??
    passwordProblem(input.password)
  );
}

/** What is wrong with a new password typed twice. */
export function newPasswordProblem(password: string, repeat: string): string | undefined {
  return (
    passwordProblem(password) ??
    (password === repeat ? undefined : 'The new password and its repetition differ: type it twice the same.')
  );
}

/** What is wrong with a new organization's slug and name. */
export function organizationProblem(slug: string, name: string): string | undefined {
  return (
    (SLUG.test(slug)
      ? undefined
      : 'The slug takes lowercase letters, digits and hyphens, and starts with a letter or digit (at most 63).') ??
    nameProblem("The organization's name", name)
  );
}
