// The daemon's long-lived identity, one per hub origin, in <config dir>/daemons.json (mode 0600).
// CLI credentials will live in a file of their own beside it: logging out never touches a daemon.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../config-dir.js';
import { CliError } from '../errors.js';

export const DAEMONS_FILE = 'daemons.json';

export interface DaemonIdentity {
  origin: string;
  daemonId: string;
  name: string;
  /** PKCS8 PEM. It never leaves this machine; the hub knows only the public key. */
  privateKey: string;
  /** As sent at enrollment: an Ed25519 JWK. */
  publicKey: { kty: 'OKP'; crv: 'Ed25519'; x: string };
  /** ISO 8601. */
  enrolledAt: string;
}

/** The file's shape; `version` lets a later CLI migrate it. */
interface DaemonsFile {
  version: 1;
  daemons: Record<string, DaemonIdentity>;
}

export function identityPath(dir: string): string {
  return join(dir, DAEMONS_FILE);
}

/** Every stored identity, in origin order; none when the file does not exist. */
export async function readIdentities(dir: string): Promise<DaemonIdentity[]> {
  const file = await readDaemonsFile(identityPath(dir));
  return Object.keys(file.daemons)
    .sort()
    .map((origin) => file.daemons[origin] as DaemonIdentity);
}

/**
 * Stores `identity` for its origin, replacing the one stored there before (which is returned:
 * it stays enrolled at the hub until retired). Other origins' identities are kept as they are.
 */
export async function saveIdentity(dir: string, identity: DaemonIdentity): Promise<DaemonIdentity | undefined> {
  const path = identityPath(dir);
  const file = await readDaemonsFile(path);
  const previous = file.daemons[identity.origin];
  file.daemons[identity.origin] = identity;
  await writeFileAtomic(path, `${JSON.stringify(file, null, 2)}\n`, 0o600);
  return previous;
}

/**
 * The identity for `origin`; without one, the only identity stored. Anything else is an error
 * that lists what is stored, so the user can pick.
 */
export function selectIdentity(identities: DaemonIdentity[], origin: string | undefined, dir: string): DaemonIdentity {
  const stored = identities.map((identity) => `  ${identity.origin}  (${identity.name})`).join('\n');
  if (origin !== undefined) {
    const found = identities.find((identity) => identity.origin === origin);
    if (found !== undefined) return found;
    throw new CliError(
      identities.length === 0
        ? `This machine has no daemon enrolled with ${origin} (looked in ${identityPath(dir)}). Enroll one first: hub daemon enroll ${origin} --name NAME`
        : `This machine has no daemon enrolled with ${origin}. Enrolled with:\n${stored}\nEnroll one first: hub daemon enroll ${origin} --name NAME`,
      2,
    );
  }
  if (identities.length === 1) return identities[0] as DaemonIdentity;
  throw new CliError(
    identities.length === 0
      ? `This machine has no enrolled daemon (looked in ${identityPath(dir)}). Enroll one first: hub daemon enroll ORIGIN --name NAME`
      : `Daemons are enrolled with several hubs; name one (argument or HUB_URL):\n${stored}`,
    2,
  );
}

async function readDaemonsFile(path: string): Promise<DaemonsFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, daemons: {} };
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON.parse's message: in Node it may quote the text, which holds private keys.
    throw new CliError(`${path} is not valid JSON; fix or remove it.`, 2);
  }
  if (!isDaemonsFile(parsed))
    throw new CliError(`${path} is not a daemons file of this CLI (version 1); fix or remove it.`, 2);
  return parsed;
}

function isDaemonsFile(value: unknown): value is DaemonsFile {
  if (typeof value !== 'object' || value === null) return false;
  const { version, daemons } = value as Record<string, unknown>;
  if (version !== 1 || typeof daemons !== 'object' || daemons === null || Array.isArray(daemons)) return false;
  return Object.entries(daemons).every(([origin, identity]) => isIdentity(identity) && identity.origin === origin);
}

function isIdentity(value: unknown): value is DaemonIdentity {
  if (typeof value !== 'object' || value === null) return false;
  const identity = value as Record<string, unknown>;
  return ['origin', 'daemonId', 'name', 'privateKey', 'enrolledAt'].every((key) => typeof identity[key] === 'string');
}
