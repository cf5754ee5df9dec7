// The CLI's credentials, one per exact hub origin, in <config dir>/credentials.json (mode 0600),
// beside the daemon identities (daemons.json), which nothing here reads or writes: logging out
// never disconnects a daemon. `hub login` saves here, `hub logout` removes, `hub auth status` reads.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from './config-dir.js';
import { CliError } from './errors.js';
import { normalizeOrigin } from './origin.js';

export const CREDENTIALS_FILE = 'credentials.json';

/** `api_key`: an organization API key (hub_pk_…), revoked by operators; `cli`: a CLI credential (hub_cli_…) from `hub login`. */
export type CredentialKind = 'api_key' | 'cli';

export interface StoredCredential {
  /** The secret itself. Never printed, logged or put in an error message. */
  token: string;
  kind: CredentialKind;
  /** ISO 8601. */
  savedAt: string;
}

export interface CredentialsFile {
  /** The origin used when a command names none (and HUB_URL is unset); `null` for none. */
  active: string | null;
  /** Keyed by normalized origin (scheme, host, port). */
  credentials: Record<string, StoredCredential>;
}

export function credentialsPath(dir: string): string {
  return join(dir, CREDENTIALS_FILE);
}

/** The whole store; empty when the file does not exist. */
export async function readCredentials(dir: string): Promise<CredentialsFile> {
  const path = credentialsPath(dir);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { active: null, credentials: {} };
    throw new CliError(`Cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'unknown error'}).`, 2);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON.parse's message: in Node it quotes the text, which holds secrets.
    throw new CliError(`${path} is not valid JSON; fix or remove it.`, 2);
  }
  if (!isCredentialsFile(parsed))
    throw new CliError(`${path} is not a credentials file of this CLI; fix or remove it.`, 2);
  return parsed;
}

/**
 * Stores `token` for `origin` (normalized), replacing what was stored for it; with `activate`,
 * it also becomes the active origin. Other origins' credentials are kept as they are.
 */
export async function saveCredential(
  dir: string,
  origin: string,
  token: string,
  kind: CredentialKind,
  options: { activate: boolean },
): Promise<void> {
  const key = normalizeOrigin(origin);
  const file = await readCredentials(dir);
  file.credentials[key] = { token, kind, savedAt: new Date().toISOString() };
  if (options.activate) file.active = key;
  await writeCredentials(dir, file);
}

/** The active origin, if it still has a credential. */
export async function activeOrigin(dir: string): Promise<string | undefined> {
  const { active, credentials } = await readCredentials(dir);
  return active !== null && Object.hasOwn(credentials, active) ? active : undefined;
}

/** The credential stored for exactly `origin` (already normalized): no other origin's is ever sent there. */
export async function credentialFor(dir: string, origin: string): Promise<StoredCredential | undefined> {
  const { credentials } = await readCredentials(dir);
  return Object.hasOwn(credentials, origin) ? credentials[origin] : undefined;
}

/** Removes the credential of `origin`, and returns it; if it was active, no origin is active afterwards. */
export async function removeCredential(dir: string, origin: string): Promise<StoredCredential | undefined> {
  const file = await readCredentials(dir);
  if (!Object.hasOwn(file.credentials, origin)) return undefined;
  const removed = file.credentials[origin];
  delete file.credentials[origin];
  if (file.active === origin) file.active = null;
  await writeCredentials(dir, file);
  return removed;
}

async function writeCredentials(dir: string, file: CredentialsFile): Promise<void> {
  await writeFileAtomic(credentialsPath(dir), `${JSON.stringify(file, null, 2)}\n`, 0o600);
}

function isCredentialsFile(value: unknown): value is CredentialsFile {
  if (typeof value !== 'object' || value === null) return false;
  const { active, credentials } = value as Record<string, unknown>;
  if (active !== null && typeof active !== 'string') return false;
  if (typeof credentials !== 'object' || credentials === null || Array.isArray(credentials)) return false;
  return Object.entries(credentials).every(([origin, credential]) => isNormalized(origin) && isCredential(credential));
}

function isCredential(value: unknown): value is StoredCredential {
  if (typeof value !== 'object' || value === null) return false;
  const { token, kind, savedAt } = value as Record<string, unknown>;
  return (
    typeof token === 'string' && token !== '' && (kind === 'api_key' || kind === 'cli') && typeof savedAt === 'string'
  );
}

function isNormalized(origin: string): boolean {
  try {
    return normalizeOrigin(origin) === origin;
  } catch {
    return false;
  }
}
