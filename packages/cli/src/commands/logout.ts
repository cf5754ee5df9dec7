// `hub logout`: forgets the stored credential of a hub, revoking a CLI credential at the hub
// first (RFC 7009). Daemon identities (daemons.json) are another file, which this never opens:
// logging out does not disconnect a daemon.
import { parseOptions, type Command } from '../command.js';
import { configDir } from '../config-dir.js';
import {
  activeOrigin,
  credentialFor,
  credentialsPath,
  removeCredential,
  type StoredCredential,
} from '../credentials.js';
import { CLIENT_ID } from '../device-flow.js';
import { CliError } from '../errors.js';
import { exitCodes } from '../help.js';
import { exchange, isObject, printable } from '../hub-client.js';
import { explicitOrigin } from '../origin.js';

const COMMAND = 'hub logout';
/** RFC 7009's revocation endpoint, at the path the hub's metadata gives (revocation_endpoint). */
const REVOKE_PATH = '/oauth/revoke';
/** Where a person revokes their CLI credentials when the hub could not be asked. */
const NOT_REVOKED = 'it stays valid there until you revoke it on your account page in the dashboard';

const help = `${COMMAND}: remove the credential stored for a hub.

Usage: ${COMMAND} [origin] [--json]

Deletes the hub's credential from credentials.json in the config dir. A CLI credential (from
"hub login", hub_cli_...) is first revoked at the hub (POST /oauth/revoke, RFC 7009), so that
it stops working everywhere. When the hub cannot be reached or refuses, the credential is still
removed here, and the output says that it was not revoked: revoke it on your account page in
the dashboard. A stored API key (hub_pk_...) is only forgotten, never revoked: the owners of
the organization revoke API keys. Daemons enrolled with the hub (daemons.json) are not touched:
they keep running and stay enrolled.

When nothing is stored for the hub, it says so and exits 0: either way, no credential is left.

With --json, one object instead of the sentences:

  { "origin": "https://hub.example.com", "removed": "cli", "revoked": true,
    "note": "the hub revoked it", "apiKeyInEnvironment": false }

"origin" is null when no origin was given and no login is active. "removed" is what was stored
and is now removed: "cli" (a CLI credential), "api_key", or null (nothing was stored). "revoked"
is true when the hub revoked the CLI credential, false when it could not be asked or refused
(then "note" says why and what to do), null when no revocation was asked for (an API key, or
nothing stored). "apiKeyInEnvironment": HUB_API_KEY is set, and other commands still use it.

Arguments:
  origin          The hub whose credential to remove (default: $HUB_URL, else the active stored
                  login)

Options:
  --json          Print JSON (above) instead of sentences
  -h, --help      Show this help

Files:
  credentials.json  in the config dir ($HUB_CONFIG_DIR, else $XDG_CONFIG_HOME/hub, else
                    ~/.config/hub): the hub's entry is removed; if it was the active login,
                    no login is active afterwards
  daemons.json      never read or written by this

Environment:
  HUB_URL          The hub, when no origin argument is given
  HUB_CONFIG_DIR   The config dir, which holds credentials.json
  HUB_API_KEY      Not used, and not unset by this: a command given HUB_API_KEY still uses it

Example:
  ${COMMAND} https://hub.example.com

${exitCodes('removed (also when the hub could not revoke it: the output says so), or nothing was\n     stored for the hub', 'the credentials file could not be read or written')}`;

export const logout: Command = {
  name: 'logout',
  summary: 'Remove the credential stored for a hub',
  async run(args, io) {
    const { values, positionals } = parseOptions(COMMAND, args, { json: { type: 'boolean' } }, 1);
    if (values.help) {
      io.stdout.write(help);
      return 0;
    }
    const dir = configDir(io.env);
    const origin = explicitOrigin(positionals[0], io.env) ?? (await activeOrigin(dir));
    const { removed, revocation } =
      origin === undefined ? { removed: undefined, revocation: undefined } : await forget(dir, origin);
    if (values.json) {
      const report = {
        origin: origin ?? null,
        removed: removed?.kind ?? null,
        revoked: revocation?.revoked ?? null,
        note: revocation?.note ?? null,
        apiKeyInEnvironment: Boolean(io.env.HUB_API_KEY),
      };
      io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      return 0;
    }
    const note = revocation?.note;
    if (origin === undefined) {
      io.stdout.write(`Not logged in: no active credential in ${credentialsPath(dir)}.\n`);
      return 0;
    }
    if (removed === undefined) {
      io.stdout.write(`No credential is stored for ${origin}.\n`);
      return 0;
    }
    const kind = removed.kind === 'cli' ? 'CLI credential' : 'API key';
    io.stdout.write(`Removed the ${kind} stored for ${origin}${note === undefined ? '' : `; ${note}`}.\n`);
    if (io.env.HUB_API_KEY) io.stdout.write('HUB_API_KEY is still set in this environment, and commands use it.\n');
    return 0;
  },
};

interface Revocation {
  revoked: boolean;
  /** What became of it, for the output. */
  note: string;
}

/** Removes the credential; a CLI credential is offered to the hub for revocation first. */
async function forget(
  dir: string,
  origin: string,
): Promise<{ removed: StoredCredential | undefined; revocation?: Revocation }> {
  const stored = await credentialFor(dir, origin);
  const revocation = stored?.kind === 'cli' ? await revocationOf(origin, stored.token) : undefined;
  return { removed: await removeCredential(dir, origin), ...(revocation === undefined ? {} : { revocation }) };
}

/** Revokes a CLI credential at the hub (RFC 7009); what became of it, for the output. */
export async function revoke(origin: string, token: string): Promise<string> {
  return (await revocationOf(origin, token)).note;
}

async function revocationOf(origin: string, token: string): Promise<Revocation> {
  const body = new URLSearchParams({ token, token_type_hint: 'access_token', client_id: CLIENT_ID }).toString();
  const headers = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  let answer;
  try {
    answer = await exchange(`${origin}${REVOKE_PATH}`, { method: 'POST', headers, body }, { secret: token });
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    return { revoked: false, note: `it was not revoked (${error.message}): ${NOT_REVOKED}` };
  }
  // RFC 7009, section 2.2: 200 also for a token the hub had already revoked or never knew.
  if (answer.status === 200) return { revoked: true, note: 'the hub revoked it' };
  const error =
    isObject(answer.body) && typeof answer.body.error === 'string' ? `, ${printable(answer.body.error)}` : '';
  return {
    revoked: false,
    note: `it was not revoked (the hub answered HTTP ${answer.status}${error}): ${NOT_REVOKED}`,
  };
}
