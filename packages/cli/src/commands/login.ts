// `hub login`: a CLI credential for one hub, approved by a person in the browser (the device
// authorization grant, as `gh auth login` does), or an existing credential from standard input
// (`--with-token`, for CI). Either way it is stored for that exact origin and made active.
import { hostname } from 'node:os';
import { canShowBrowser, openInBrowser } from '../browser.js';
import { parseOptions, type Command, type Io } from '../command.js';
import { ORIGIN_ARGUMENT_HELP } from '../client-help.js';
import { configDir } from '../config-dir.js';
import { checkCredential, who, type CredentialInfo } from '../credential-info.js';
import { credentialFor, saveCredential, type CredentialKind } from '../credentials.js';
import { discoverEndpoints, pollForCredential, requestDeviceCode, type DeviceCode } from '../device-flow.js';
import { CliError, Interrupted, UsageError } from '../errors.js';
import { exitCodes } from '../help.js';
import { printable, resolveOrigin } from '../hub-client.js';
import { revoke } from './logout.js';

const COMMAND = 'hub login';
/** More than any credential; a larger standard input is not one. */
const MAX_INPUT_BYTES = 4_096;
const KINDS: [RegExp, CredentialKind][] = [
  [/^hub_pk_[0-9A-Za-z]+$/, 'api_key'],
  [/^hub_cli_[0-9A-Za-z]+$/, 'cli'],
];

const help = `${COMMAND}: log in to a hub in the browser, and store the credential for that hub.

Usage: ${COMMAND} [origin] [--no-browser]
       ${COMMAND} [origin] --with-token < FILE

Asks the hub for a one-time code (the OAuth 2.0 device authorization grant, RFC 8628), prints
the code and the page where it is approved, and opens that page in the browser. There, sign in
if needed, check that the page shows the same code, choose the organization, and approve. The
hub then issues a CLI credential (hub_cli_...) for you in that organization, with the scopes of
the CLI's commands; it is stored for exactly this hub and becomes the active login, which
commands given no origin use. The browser is opened only when standard output is a terminal
and there is a display (on Linux: DISPLAY or WAYLAND_DISPLAY); otherwise, and with --no-browser,
open the printed URL yourself, on any device.

While waiting, it asks the hub every few seconds (the interval the hub gives; 5 s more each
time the hub says slow_down) until the code is approved, denied or expired (after 10 minutes,
unless the hub says otherwise). Ctrl-C stops waiting; nothing is stored.

With --with-token, reads an organization API key (hub_pk_...) or a CLI credential (hub_cli_...)
from standard input instead, for CI and scripts: it is stored, as the active login, only if the
hub accepts it (GET /api/v1/credential).

A CLI credential ends on its own: after 90 days unused or 365 days in all (the hub's
HUB_CLI_CREDENTIAL_IDLE_DAYS and HUB_CLI_CREDENTIAL_LIFETIME_DAYS), when you change your
password, and when you leave the organization or are removed from it; hub then says "your
login expired: run hub login". Daemons you enrolled with it are retired when you leave.

A credential stored for the hub before is replaced: a CLI credential is then revoked at the hub
(once the new one is stored), an API key only forgotten. As with "gh auth login", everything
is printed on standard error; standard output stays empty. A credential is never printed.

Arguments:
${ORIGIN_ARGUMENT_HELP}

Options:
  --no-browser    Do not open a browser; only print the code and the URL
  --with-token    Read the credential from standard input instead (no browser)
  -h, --help      Show this help

Files:
  credentials.json  in the config dir ($HUB_CONFIG_DIR, else $XDG_CONFIG_HOME/hub, else
                    ~/.config/hub): a credential per hub origin, and which one is active
                    (mode 0600, dir 0700)

Environment:
  HUB_URL          The hub, when no origin argument is given
  HUB_CONFIG_DIR   The config dir, which holds credentials.json
  HUB_API_KEY      Not used by this; while it is set, other commands use it instead of any login
  DISPLAY, WAYLAND_DISPLAY
                   On Linux, whether there is a display to open a browser on

Example:
  ${COMMAND} https://hub.example.com
  printenv HUB_CI_KEY | ${COMMAND} --with-token https://hub.example.com

${exitCodes('logged in: the credential is stored and active', 'denied, expired, refused by the hub, or the hub could not be reached; nothing stored', ',\n     --with-token with standard input that holds no API key or CLI credential')}  130 stopped with Ctrl-C (SIGINT; 143 for SIGTERM) before the login was approved; nothing stored
`;

export const login: Command = {
  name: 'login',
  summary: 'Log in to a hub in the browser and store the credential',
  async run(args, io) {
    const { values, positionals } = parseOptions(
      COMMAND,
      args,
      { 'no-browser': { type: 'boolean' }, 'with-token': { type: 'boolean' } },
      1,
    );
    if (values.help) {
      io.stdout.write(help);
      return 0;
    }
    const origin = await resolveOrigin(positionals[0], io);
    if (values['with-token']) {
      if (values['no-browser']) throw new UsageError('--with-token opens no browser; leave out --no-browser.', COMMAND);
      return withToken(origin, io);
    }
    const stop = io.stopSignal();
    try {
      return await inBrowser(origin, io, stop, !values['no-browser'] && canShowBrowser(io, process.platform));
    } catch (error) {
      if (!(error instanceof Interrupted)) throw error;
      io.stderr.write('hub: login stopped; nothing was stored.\n');
      return error.exitCode;
    }
  },
};

async function inBrowser(origin: string, io: Io, stop: AbortSignal, browse: boolean): Promise<number> {
  const endpoints = await discoverEndpoints(origin, stop);
  const code = await requestDeviceCode(endpoints, hostname().slice(0, 255), stop);
  const page = code.verificationUriComplete ?? code.verificationUri;
  io.stderr.write(instructions(origin, code));
  if (browse) {
    const failure = await openInBrowser(page);
    io.stderr.write(
      failure === undefined
        ? 'Opening the page in your browser; if it does not show, open the URL above.\n'
        : `Could not open a browser (${failure}); open the URL above yourself.\n`,
    );
  }
  io.stderr.write(`Waiting for approval (the code expires in ${minutes(code.expiresInS)}; Ctrl-C to stop)...\n`);
  const token = await pollForCredential(endpoints, code, stop);
  const dir = configDir(io.env);
  const replaced = await credentialFor(dir, origin);
  await saveCredential(dir, origin, token, 'cli', { activate: true });
  const check = await checkCredential(origin, token);
  io.stderr.write(
    check.valid === true
      ? `${loggedIn(origin, check.info)}\n`
      : `Logged in to ${origin}; the credential is stored and active.\n`,
  );
  // The CLI credential this one replaces would otherwise stay valid, unused, until someone
  // revokes it on the account page. Revoked only once the new one is stored.
  if (replaced?.kind === 'cli' && replaced.token !== token)
    io.stderr.write(
      `The CLI credential stored for ${origin} before was replaced; ${await revoke(origin, replaced.token)}.\n`,
    );
  noteApiKey(io);
  return 0;
}

async function withToken(origin: string, io: Io): Promise<number> {
  if (io.stdin.isTTY)
    throw new UsageError(
      `--with-token reads the credential from standard input: pipe it in, such as "${COMMAND} --with-token < key.txt".`,
      COMMAND,
    );
  const token = await readAll(io);
  if (token === '')
    throw new CliError('Standard input is empty: give an API key (hub_pk_...) or a CLI credential (hub_cli_...).', 2);
  if (token.startsWith('hub_et_'))
    throw new CliError(
      'That is an enrollment token (hub_et_...), which only enrolls a daemon ("hub daemon enroll"): give an API key (hub_pk_...) or a CLI credential (hub_cli_...).',
      2,
    );
  const kind = KINDS.find(([pattern]) => pattern.test(token))?.[1];
  if (kind === undefined)
    throw new CliError(
      'Standard input holds no API key (hub_pk_...) or CLI credential (hub_cli_...): give exactly one, alone.',
      2,
    );

  const check = await checkCredential(origin, token);
  if (check.valid === false)
    throw new CliError(
      `The hub at ${origin} does not accept this credential (revoked or unknown); nothing was stored.`,
    );
  if (check.valid === null)
    throw new CliError(`Could not check the credential, so nothing was stored: ${check.reason}`);
  await saveCredential(configDir(io.env), origin, token, kind, { activate: true });
  io.stderr.write(`${loggedIn(origin, check.info)}\n`);
  noteApiKey(io);
  return 0;
}

function instructions(origin: string, code: DeviceCode): string {
  const lines = [`To log in to ${origin}, approve this one-time code in the browser: ${code.userCode}`];
  if (code.verificationUriComplete === undefined) lines.push(`Open ${code.verificationUri} and type the code.`);
  else lines.push(`Open ${code.verificationUriComplete}`, `(or ${code.verificationUri}, and type the code).`);
  return `${lines.join('\n')}\n`;
}

/** "Logged in to … as Ada (ada@example.com) in organization acme." */
function loggedIn(origin: string, info: CredentialInfo): string {
  const as = info.account === null ? `with ${who(info)}` : `as ${who(info)}`;
  return `Logged in to ${origin} ${as} in organization ${printable(info.organization.slug)}.`;
}

function noteApiKey(io: Io): void {
  if (io.env.HUB_API_KEY)
    io.stderr.write(
      'Note: HUB_API_KEY is set in this environment; commands use it instead of this login while it is.\n',
    );
}

function minutes(seconds: number): string {
  return seconds < 120 ? `${Math.round(seconds)} seconds` : `${Math.round(seconds / 60)} minutes`;
}

/** Standard input to its end, trimmed; refused past MAX_INPUT_BYTES. */
async function readAll(io: Io): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of io.stdin) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > MAX_INPUT_BYTES)
      throw new CliError(`Standard input is longer than any credential (over ${MAX_INPUT_BYTES} bytes).`, 2);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8').trim();
}
