// The rules of the fields people type: checked alike by the dashboard's forms (to say what is
// wrong) and the hub's services (to refuse it), so that both sides never disagree. Lengths are
// counted in code points, as JSON Schema's maxLength counts them for the API.

/** An organization's or project's slug, as the tables' checks (migrations/001_initial.sql). */
export const SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;

export function isSlug(slug: string): boolean {
  return SLUG_PATTERN.test(slug);
}

/** A control character (C0, DEL, C1): never stored in a name or an e-mail. */
const CONTROL = /\p{Cc}/u;

/** A name (a person's, an organization's, a project's, a key's) is at most this many code points. */
export const NAME_MAX = 200;

/** A name as stored: NFC, trimmed. */
export function normalizeName(name: string): string {
  return name.normalize('NFC').trim();
}

/**
 * What is wrong with a name, once normalized: `required` when blank, `too_long` beyond NAME_MAX
 * code points, `unstorable` with a control character or a lone surrogate; undefined when nothing is.
 */
export function nameIssue(name: string): 'required' | 'too_long' | 'unstorable' | undefined {
  const normalized = normalizeName(name);
  if (normalized === '') return 'required';
  if ([...normalized].length > NAME_MAX) return 'too_long';
  if (!normalized.isWellFormed() || CONTROL.test(normalized)) return 'unstorable';
  return undefined;
}

export function acceptableName(name: string): boolean {
  return nameIssue(name) === undefined;
}

export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+$/u;
/** RFC 5321's limit of a path, in UTF-16 units as before. */
export const EMAIL_MAX = 254;

/** An e-mail as stored: NFC, trimmed, lower-cased. */
export function normalizeEmail(email: string): string {
  return email.normalize('NFC').trim().toLowerCase();
}

/** Whether the e-mail, once normalized, looks like one: something@somewhere, at most EMAIL_MAX, no control character. */
export function acceptableEmail(email: string): boolean {
  const normalized = normalizeEmail(email);
  return (
    normalized.isWellFormed() &&
    normalized.length <= EMAIL_MAX &&
    EMAIL_PATTERN.test(normalized) &&
    !CONTROL.test(normalized)
  );
}

/** Passwords are 12 to 1024 code points, after NFC normalization. */
export const PASSWORD_LENGTH = { min: 12, max: 1024 } as const;

export function normalizePassword(password: string): string {
  return password.normalize('NFC');
}

/** What is wrong with a new password: its length (code points, after NFC), or a lone surrogate. */
export function passwordIssue(password: string): 'too_short' | 'too_long' | 'unstorable' | undefined {
  const length = [...normalizePassword(password)].length;
  if (length < PASSWORD_LENGTH.min) return 'too_short';
  if (length > PASSWORD_LENGTH.max) return 'too_long';
  if (!password.isWellFormed()) return 'unstorable';
  return undefined;
}

export function acceptablePassword(password: string): boolean {
  return passwordIssue(password) === undefined;
}

/** Ids are UUIDs, in either case (PostgreSQL reads both); anything else names nothing. */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(id: string): boolean {
  return UUID_PATTERN.test(id);
}

/** A UUID as the hub writes it, in lower case: what it gave out and takes back only so (a cursor, a daemon id). */
export function isCanonicalUuid(id: string): boolean {
  return UUID_PATTERN.test(id) && id === id.toLowerCase();
}

/**
 * The user code of the device authorization grant. RFC 8628, section 6.1: base-20 consonants,
 * no vowels (no words) and no look-alike digits. Eight of them are 20^8 ≈ 2.6 × 10^10 codes
 * (34.6 bits), enough for codes that live 10 minutes when wrong guesses are throttled (section 5.1).
 */
export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
export const USER_CODE_LENGTH = 8;
const USER_CODE = new RegExp(`^[${USER_CODE_ALPHABET}]{${USER_CODE_LENGTH}}$`);

/** As people read and type it, from the code as stored (eight letters): XXXX-XXXX. */
export function formatUserCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/**
 * What a person typed, as stored (eight letters, no hyphen): case, spaces and hyphens ignored
 * (section 6.1 asks for that leniency); undefined when it cannot be a user code at all.
 */
export function parseUserCode(typed: string): string | undefined {
  const code = typed.replace(/[\s-]/g, '').toUpperCase();
  return USER_CODE.test(code) ? code : undefined;
}

/**
 * A GitHub repository as a project names it, `owner/name` (migrations/014_github.sql's check):
 * an owner of 1 to 39 letters, digits and hyphens, not starting with a hyphen; a name of 1 to 100
 * letters, digits, `.`, `_` and `-`, other than `.` and `..`. Compared without regard to case.
 */
export const REPOSITORY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9-]{0,38}\/[A-Za-z0-9._-]{1,100}$/;
export const REPOSITORY_MAX = 140;

export function isRepository(repository: string): boolean {
  return REPOSITORY_PATTERN.test(repository) && !/\/\.{1,2}$/.test(repository);
}
