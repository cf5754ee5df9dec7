// Where the dashboard's forms are checked: the rules are @hub/schemas's field rules, the ones the
// hub's services apply; this file only says what is wrong in words, in the order of the fields.
import {
  isRepository,
  acceptableEmail,
  formatUserCode,
  isSlug,
  nameIssue,
  parseUserCode,
  PASSWORD_LENGTH,
  passwordIssue,
  type components,
} from '@hub/schemas';

/** A refused sign-in's words, also those of an invitation's sign-up with an account's e-mail and another password. */
export const SIGN_IN_WRONG = 'The e-mail address or the password is wrong.';
export const SIGN_IN_THROTTLED = 'Too many failed sign-ins: wait a few minutes, then try again.';

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

/** A display name as the hub takes it: not blank, at most 200 characters, none it cannot store. */
export function nameProblem(label: string, name: string): string | undefined {
  const issue = nameIssue(name);
  if (issue === 'required') return `${label} is required.`;
  if (issue === 'too_long') return `${label} is longer than 200 characters.`;
  if (issue === 'unstorable') return `${label} contains a character the hub cannot store.`;
  return undefined;
}

function emailProblem(email: string): string | undefined {
  return acceptableEmail(email) ? undefined : 'Enter an e-mail address such as ada@example.com.';
}

function passwordProblem(password: string): string | undefined {
  const issue = passwordIssue(password);
  if (issue === 'too_short') return `The password needs at least ${PASSWORD_LENGTH.min} characters.`;
  if (issue === 'too_long') return `The password is longer than ${PASSWORD_LENGTH.max} characters.`;
  if (issue === 'unstorable') return 'The password contains a character the hub cannot store.';
  return undefined;
}

function slugProblem(slug: string): string | undefined {
  return isSlug(slug)
    ? undefined
    : 'The slug takes lowercase letters, digits and hyphens, and starts with a letter or digit (at most 63).';
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
    emailProblem(input.email) ??
    passwordProblem(input.password) ??
    slugProblem(input.slug) ??
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

/** What is wrong with a new project's slug and name. */
export function projectProblem(slug: string, name: string): string | undefined {
  return slugProblem(slug) ?? nameProblem("The project's name", name);
}

/** What is wrong with an invitation's new account; undefined when nothing is. */
export function newAccountProblem(input: { name: string; email: string; password: string }): string | undefined {
  return nameProblem('Your name', input.name) ?? emailProblem(input.email) ?? passwordProblem(input.password);
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
  return slugProblem(slug) ?? nameProblem("The organization's name", name);
}

/** A typed user code (`hub login`) as the hub shows it, XXXX-XXXX; undefined when it cannot be one. */
export function userCodeOf(typed: string): string | undefined {
  const code = parseUserCode(typed);
  return code === undefined ? undefined : formatUserCode(code);
}

/** What is wrong with a project's repository as typed; '' (none) is fine. */
export function repositoryProblem(repository: string): string | undefined {
  if (repository === '' || isRepository(repository)) return undefined;
  return `Write the repository as GitHub does, owner/name (such as octo-org/hello-world): ${repository.length > 60 ? 'this' : `“${repository}”`} is not one.`;
}

/** The event types an endpoint can take (the API's WebhookEventType), in the order the form lists them. */
export const WEBHOOK_EVENTS = [
  'run.started',
  'run.completed',
  'configuration.installed',
  'trigger.installed',
  'daemon.offline',
] as const satisfies readonly components['schemas']['WebhookEventType'][];
/** As the API's WebhookEndpointRequest: a URL of at most 2048, a description of at most 200, neither with NUL nor a lone surrogate. */
const WEBHOOK_URL_MAX = 2048;
const WEBHOOK_DESCRIPTION_MAX = 200;
const storable = (text: string) => text.isWellFormed() && !text.includes('\u0000');

/** What is wrong with a new webhook endpoint's fields, by field; the destination itself is the hub's to judge. */
export function webhookProblem(url: string, events: string[], description: string): { url?: string; other?: string } {
  if (url === '') return { url: 'Enter the URL the hub sends events to, such as https://hooks.example.com/hub.' };
  if ([...url].length > WEBHOOK_URL_MAX || !storable(url))
    return { url: `The URL is longer than ${WEBHOOK_URL_MAX} characters, or has a character the hub cannot store.` };
  if (events.length === 0) return { other: 'Choose the events to send, or all events.' };
  if (!events.every((event) => event === '*' || (WEBHOOK_EVENTS as readonly string[]).includes(event)))
    return { other: 'Choose events from the list.' };
  if ([...description].length > WEBHOOK_DESCRIPTION_MAX || !storable(description))
    return {
      other: `The description is longer than ${WEBHOOK_DESCRIPTION_MAX} characters, or has a character the hub cannot store.`,
    };
  return {};
}
