// `hub auth status`: every stored login, what the hub says about it, and whether it still
// accepts it. Read-only: it changes no file.
import { group, parseOptions, type Command, type Io } from '../command.js';
import { configDir } from '../config-dir.js';
import { checkCredential, who, type Check } from '../credential-info.js';
import { readCredentials, type CredentialKind } from '../credentials.js';
import { exitCodes } from '../help.js';
import { printable } from '../hub-client.js';

const COMMAND = 'hub auth status';

const statusHelp = `${COMMAND}: show every stored login, and whether its hub still accepts it.

Usage: ${COMMAND} [--json]

For each hub that "hub login" stored a credential for, in the order they were stored: the
origin, whether it is the active login, the kind of credential (a CLI credential from the
browser login, or an API key from "hub login --with-token"), the organization, who it is (the
person of a CLI credential; the name of an API key), its scopes, and whether the hub still
accepts it (GET /api/v1/credential): "yes", "no: revoked or unknown", or "unknown" with the
reason when the hub could not be asked. Hubs are asked in parallel. No credential is printed.

With --json, one object on standard output:

  { "active": "https://hub.example.com",
    "logins": [ { "origin": "https://hub.example.com", "active": true, "kind": "cli",
                  "valid": true, "organization": { "id": "...", "slug": "acme", "name": "Acme" },
                  "account": { "id": "...", "name": "Ada", "email": "ada@example.com" },
                  "name": "...", "scopes": [ "projects:read", ... ] } ] }

"valid" is true, false (revoked or unknown) or null (not known: see "error"); organization,
account, name and scopes are null unless valid is true; account is null for an API key.

Options:
  --json          Print JSON instead of text
  -h, --help      Show this help

Files:
  credentials.json  in the config dir ($HUB_CONFIG_DIR, else $XDG_CONFIG_HOME/hub, else
                    ~/.config/hub): the stored logins

Environment:
  HUB_CONFIG_DIR   The config dir, which holds credentials.json
  HUB_API_KEY      Not checked; when it is set, the text output notes that commands use it
                   instead of the stored logins

Example:
  ${COMMAND} --json

${exitCodes('every stored login is accepted by its hub', 'a login is refused or could not be checked, or none is stored ("Not logged in to any\n     hub.", as gh auth status)')}`;

interface Login {
  origin: string;
  active: boolean;
  kind: CredentialKind;
  check: Check;
}

const status: Command = {
  name: 'status',
  summary: 'Show the stored logins and whether their hubs accept them',
  async run(args, io) {
    const { values } = parseOptions(COMMAND, args, { json: { type: 'boolean' } }, 0);
    if (values.help) {
      io.stdout.write(statusHelp);
      return 0;
    }
    const file = await readCredentials(configDir(io.env));
    const active = file.active !== null && Object.hasOwn(file.credentials, file.active) ? file.active : null;
    const logins: Login[] = await Promise.all(
      Object.entries(file.credentials).map(async ([origin, stored]) => ({
        origin,
        active: origin === active,
        kind: stored.kind,
        check: await checkCredential(origin, stored.token),
      })),
    );
    if (values.json) io.stdout.write(`${JSON.stringify({ active, logins: logins.map(toJson) }, null, 2)}\n`);
    else if (logins.length > 0) io.stdout.write(text(logins, io));
    if (logins.length === 0) io.stderr.write('Not logged in to any hub. Run "hub login [origin]" to log in.\n');
    return logins.length > 0 && logins.every((login) => login.check.valid === true) ? 0 : 1;
  },
};

export const auth = group({
  name: 'auth',
  path: 'hub auth',
  summary: 'Show the stored logins (status)',
  help: (commands) => `hub auth: the logins stored by "hub login".

Usage: hub auth <command> [options]

Commands:
${commands}

Options:
  -h, --help   Show this help

Run "hub auth <command> --help" for the help of a command.
`,
  commands: [status],
});

function toJson({ origin, active, kind, check }: Login) {
  const known = check.valid === true ? check.info : undefined;
  return {
    origin,
    active,
    kind,
    valid: check.valid,
    organization: known?.organization ?? null,
    account: known === undefined ? null : known.account,
    name: known?.name ?? null,
    scopes: known?.scopes ?? null,
    ...(check.valid === false ? { error: 'revoked or unknown' } : check.valid === null ? { error: check.reason } : {}),
  };
}

function text(logins: Login[], io: Io): string {
  const blocks = logins.map(({ origin, active, kind, check }) => {
    const lines = [
      `${origin}${active ? ' (active)' : ''}`,
      field('Credential', kind === 'cli' ? 'CLI credential (hub login)' : 'API key (hub login --with-token)'),
    ];
    if (check.valid === true) {
      const { organization, scopes } = check.info;
      lines.push(
        field('Organization', printable(`${organization.name} (${organization.slug})`)),
        field('Who', who(check.info)),
        field('Scopes', printable(scopes.join(' '))),
        field('Accepted', 'yes'),
      );
    } else if (check.valid === false) {
      lines.push(
        field('Accepted', 'no: expired, revoked or unknown'),
        `  Run "hub login ${origin}" to log in again, or "hub logout ${origin}" to forget it.`,
      );
    } else {
      lines.push(field('Accepted', `unknown: ${check.reason}`));
    }
    return lines.join('\n');
  });
  const note = io.env.HUB_API_KEY
    ? ['HUB_API_KEY is set in this environment: commands use it instead of these logins.']
    : [];
  return `${[...blocks, ...note].join('\n\n')}\n`;
}

function field(name: string, value: string): string {
  return `  ${`${name}:`.padEnd(14)}${value}`;
}
