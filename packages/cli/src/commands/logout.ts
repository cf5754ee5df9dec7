// `hub logout`: forgets the stored credential of a hub. Daemon identities (daemons.json) are
// another file, which this never opens: logging out does not disconnect a daemon.
import { parseOptions, type Command } from '../command.js';
import { configDir } from '../config-dir.js';
import { activeOrigin, credentialFor, credentialsPath, removeCredential, type StoredCredential } from '../credentials.js';
import { CliError } from '../errors.js';
import { exitCodes } from '../help.js';
import { hubRequest } from '../hub-client.js';
import { explicitOrigin } from '../origin.js';

const COMMAND = 'hub logout';
/** Not in the API yet: a 404 from it means "this hub cannot revoke CLI credentials". */
const REVOKE_PATH = '/api/v1/cli-credentials/revoke';

const help = `${COMMAND}: remove the credential stored for a hub.

Usage: ${COMMAND} [origin]

Deletes the hub's credential from credentials.json in the config dir. A CLI credential (from
"hub login") is first revoked at the hub when the hub can be reached and supports it; otherwise
it is only forgotten here, and the output says so. A stored API key is never revoked by this:
operators revoke API keys. Daemons enrolled with the hub (daemons.json) are not touched: they
keep running and stay enrolled.

When nothing is stored for the hub, it says so and exits 0: either way, no credential is left.

Arguments:
  origin          The hub whose credential to remove (default: $HUB_URL, else the active stored
                  login)

Options:
  -h, --help      Show this help

Environment:
  HUB_URL          The hub, when no origin argument is given
  HUB_CONFIG_DIR   The config dir, which holds credentials.json
  HUB_API_KEY      Not used, and not unset by this: a command given HUB_API_KEY still uses it

Example:
  ${COMMAND} https://hub.example.com

${exitCodes('removed, or nothing was stored for the hub', 'the credentials file could not be written')}`;

export const logout: Command = {
  name: 'logout',
  summary: 'Remove the credential stored for a hub',
  async run(args, io) {
    const { values, positionals } = parseOptions(COMMAND, args, {}, 1);
    if (values.help) {
      io.stdout.write(help);
      return 0;
    }
    const dir = configDir(io.env);
    const origin = explicitOrigin(positionals[0], io.env) ?? (await activeOrigin(dir));
    if (origin === undefined) {
      io.stdout.write(`Not logged in: no active credential in ${credentialsPath(dir)}.\n`);
      return 0;
    }
    const { removed, note } = await forget(dir, origin);
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

/** Removes the credential; a CLI credential is offered to the hub for revocation first. */
async function forget(dir: string, origin: string): Promise<{ removed: StoredCredential | undefined; note?: string }> {
  const stored = await credentialFor(dir, origin);
  const note = stored?.kind === 'cli' ? await revoke(origin, stored.token) : undefined;
  return { removed: await removeCredential(dir, origin), note };
}

async function revoke(origin: string, token: string): Promise<string> {
  let status: number;
  try {
    status = (await hubRequest(origin, token, 'POST', REVOKE_PATH, '{}')).status;
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    return `the hub could not revoke it (${error.message}): it stays valid there until revoked from the hub`;
  }
  if (status >= 200 && status < 300) return 'the hub revoked it';
  if (status === 401) return 'the hub no longer accepted it';
  return `the hub could not revoke it (HTTP ${status}): it stays valid there until revoked from the hub`;
}
