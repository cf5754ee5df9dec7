// What the hub says about a credential (GET /api/v1/credential): whose it is, in which
// organization, with which scopes. `hub login` and `hub auth status` show it.
import { CliError } from './errors.js';
import { hubRequest, isObject, LoginEnded, printable, renderProblem } from './hub-client.js';

export interface CredentialInfo {
  kind: 'api_key' | 'cli';
  /** The key's name; for a CLI credential, the name the hub gave it. */
  name: string;
  scopes: string[];
  organization: { id: string; slug: string; name: string };
  /** The person a CLI credential belongs to; null for an API key. */
  account: { id: string; name: string; email: string } | null;
}

/** The hub's answer for `token`: accepted (with what it says), refused (401), or unknown (anything else, or no answer). */
export type Check = { valid: true; info: CredentialInfo } | { valid: false } | { valid: null; reason: string };

export async function checkCredential(origin: string, token: string, stop?: AbortSignal): Promise<Check> {
  let answer;
  try {
    answer = await hubRequest(origin, token, 'GET', '/api/v1/credential', undefined, stop);
  } catch (error) {
    if (error instanceof LoginEnded) return { valid: false };
    if (error instanceof CliError) return { valid: null, reason: error.message };
    throw error;
  }
  if (answer.status === 401) return { valid: false };
  if (answer.status !== 200) return { valid: null, reason: renderProblem(answer).split('\n')[0] as string };
  const info = parseInfo(answer.body);
  return info === undefined
    ? {
        valid: null,
        reason: `the hub at ${origin} answered GET /api/v1/credential with something other than a credential`,
      }
    : { valid: true, info };
}

/** "Ada (ada@example.com)" for a person's CLI credential; `the API key "ops"` for a key. */
export function who(info: CredentialInfo): string {
  return info.account === null
    ? `the API key "${printable(info.name)}"`
    : `${printable(info.account.name)} (${printable(info.account.email)})`;
}

function parseInfo(body: unknown): CredentialInfo | undefined {
  if (!isObject(body)) return undefined;
  const { kind, name, scopes, organization, account } = body;
  if (kind !== 'api_key' && kind !== 'cli') return undefined;
  if (typeof name !== 'string' || !Array.isArray(scopes) || !scopes.every((scope) => typeof scope === 'string'))
    return undefined;
  if (!hasStrings(organization, ['id', 'slug', 'name'])) return undefined;
  if (account !== null && !hasStrings(account, ['id', 'name', 'email'])) return undefined;
  return {
    kind,
    name,
    scopes: scopes as string[],
    organization: { id: organization.id, slug: organization.slug, name: organization.name },
    account: account === null ? null : { id: account.id, name: account.name, email: account.email },
  };
}

function hasStrings<K extends string>(value: unknown, keys: K[]): value is Record<K, string> {
  return isObject(value) && keys.every((key) => typeof value[key] === 'string');
}
