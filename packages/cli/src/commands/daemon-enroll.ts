// `hub daemon enroll`: a key pair made here, the public half and an enrollment token sent to the hub.
import { generateKeyPairSync } from 'node:crypto';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { HubClient, HubError, HubUnreachable, runtimesOf, type Enrollment, type Runtime } from '@hub/daemon';
import { isSlug, type WireSchema } from '@hub/schemas';
import { parseOptions, type Command, type Io } from '../command.js';
import { configDir } from '../config-dir.js';
import { configFilePath, loadDaemonConfig } from '../daemon/config.js';
import { identityPath, saveIdentity } from '../daemon/identity.js';
import { CliError, UsageError } from '../errors.js';
import { DEFAULT_ORIGIN, explicitOrigin } from '../origin.js';
import { CONFIG_HELP, exitCodes, FILES_HELP } from '../help.js';

const COMMAND = 'hub daemon enroll';
/** The hub's pattern for daemon names (DECISIONS.md, Daemons). */

/** The --name of `command`, checked against the hub's pattern before anything is sent. */
export function daemonName(name: string | undefined, command: string): string {
  if (name === undefined)
    throw new UsageError('--name is required: the name by which the hub and configurations know this daemon.', command);
  if (!isSlug(name))
    throw new UsageError(
      `--name "${name}": a name is 1 to 63 lowercase letters, digits and hyphens, starting with a letter or digit.`,
      command,
    );
  return name;
}
const TOKEN_PREFIX = 'hub_et_';

const help = `${COMMAND}: enroll this machine with a hub as a daemon.

Usage: ${COMMAND} [origin] --name NAME [--replace] [--config FILE] [--json]

Makes an Ed25519 key pair, and sends the public key, the name, the agent runtimes of the config
file and an enrollment token to the hub. The hub answers with the daemon's id; the id, the name
and the private key are stored for that hub, and "hub daemon run" uses them. The private key
never leaves this machine.

The enrollment token (hub_et_...) comes from HUB_ENROLLMENT_TOKEN, else from the first line of
standard input:

  printf '%s\\n' "$TOKEN" | ${COMMAND} https://hub.example.com --name dev-box

There is deliberately no option for it: a command line is visible to every user of the machine
and stays in shell history. A token is short-lived and single use; an API key with the scope
daemons:enroll issues one (POST /api/v1/daemons/enrollment-tokens).

With --json, one object instead of the sentences (the paths absolute, as they were used):

  { "origin": "https://hub.example.com", "daemonId": "...", "name": "dev-box",
    "runtimes": [ { "provider": "codex", "modes": [ ... ], "models": [ ... ] } ],
    "config": "/home/me/.config/hub/daemon.yml",
    "identityFile": "/home/me/.config/hub/daemons.json", "replaced": null }

"runtimes" are those sent, from the config ("modes" and "models" only where it lists them);
"replaced" is { "name", "daemonId" } of the identity stored for this hub before, which stays
enrolled at the hub until it is retired, or null.

Arguments:
  origin          The hub, such as https://hub.example.com (default: $HUB_URL, else
                  ${DEFAULT_ORIGIN}). Scheme, host and port only.

Options:
  --name NAME     The daemon's name in the organization, which configurations use (required):
                  1 to 63 lowercase letters, digits and hyphens, starting with a letter or digit
  --replace       If an active daemon already has that name, retire it and take its place
  --config FILE   The daemon config (default: daemon.yml in the config dir)
  --json          Print JSON (above) instead of sentences
  -h, --help      Show this help

${FILES_HELP}
Enrolling again with the same hub replaces the identity stored for it.

${CONFIG_HELP}
Environment:
  HUB_ENROLLMENT_TOKEN   The enrollment token (else it is read from standard input)
  HUB_URL                The hub, when no origin argument is given
  HUB_CONFIG_DIR         The config dir

${exitCodes('enrolled', 'the hub refused the enrollment, or could not be reached')}`;

export const enroll: Command = {
  name: 'enroll',
  summary: 'Enroll this machine with a hub, with an enrollment token',
  async run(args, io) {
    if (args.some((arg) => /^--[\w-]*token/i.test(arg))) {
      throw new UsageError(
        'The enrollment token is never an option (a command line is visible to other users): set HUB_ENROLLMENT_TOKEN or pipe it on standard input.',
        COMMAND,
      );
    }
    const { values, positionals } = parseOptions(
      COMMAND,
      args,
      { name: { type: 'string' }, replace: { type: 'boolean' }, config: { type: 'string' }, json: { type: 'boolean' } },
      1,
    );
    if (values.help) {
      io.stdout.write(help);
      return 0;
    }
    const name = daemonName(values.name, COMMAND);
    const origin = explicitOrigin(positionals[0], io.env) ?? DEFAULT_ORIGIN;
    const dir = configDir(io.env);
    const configFile = configFilePath(values.config, dir);
    const runtimes = runtimesOf(await loadDaemonConfig(configFile));
    const token = await enrollmentToken(io);

    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const jwk = { kty: 'OKP', crv: 'Ed25519', x: publicKey.export({ format: 'jwk' }).x as string } as const;
    const enrollment: Enrollment = {
      token,
      name,
      publicKey: jwk,
      runtimes,
      ...(values.replace ? { replace: true } : {}),
    };
    let enrolled: WireSchema<'EnrolledDaemon'>;
    try {
      enrolled = await new HubClient(origin).enroll(enrollment);
    } catch (error) {
      throw enrollmentFailure(error, origin, name, values.replace === true);
    }
    const previous = await saveIdentity(dir, {
      origin,
      daemonId: enrolled.daemonId,
      name: enrolled.name,
      privateKey: privateKey.export({ format: 'pem', type: 'pkcs8' }) as string,
      publicKey: jwk,
      enrolledAt: new Date().toISOString(),
    });
    if (values.json) {
      const replaced = previous === undefined ? null : { name: previous.name, daemonId: previous.daemonId };
      const report = {
        origin,
        daemonId: enrolled.daemonId,
        name: enrolled.name,
        runtimes,
        config: resolve(configFile),
        identityFile: resolve(identityPath(dir)),
        replaced,
      };
      io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      return 0;
    }
    const configOption = values.config === undefined ? '' : ` --config ${values.config}`;
    io.stdout.write(
      [
        `Enrolled daemon ${enrolled.name} (id ${enrolled.daemonId}) with ${origin}.`,
        `Runtimes: ${runtimes.map(describeRuntime).join(', ')} (from ${configFile}).`,
        `Identity stored in ${identityPath(dir)}.`,
        ...(previous === undefined
          ? []
          : [
              `It replaces the identity stored for this hub before (daemon ${previous.name}, id ${previous.daemonId}), which stays enrolled at the hub until it is retired.`,
            ]),
        `Start it with: hub daemon run ${origin}${configOption}`,
        `A configuration runs its steps here through an environment that names this daemon, such as`,
        `  environments: [ { name: laptop, kind: daemon, daemon: ${enrolled.name}, cwd: ~/src/app } ]`,
        `Its working directory (cwd) must exist on this machine: the daemon does not create it, and a step whose cwd is missing fails.`,
        '',
      ].join('\n'),
    );
    return 0;
  },
};

/** HUB_ENROLLMENT_TOKEN, else the first line of standard input (with a prompt at a terminal). */
async function enrollmentToken(io: Io): Promise<string> {
  let token = io.env.HUB_ENROLLMENT_TOKEN?.trim();
  if (!token) {
    if (io.stdin.isTTY) io.stderr.write('Enrollment token: ');
    token = (await firstLine(io.stdin))?.trim();
  }
  if (!token)
    throw new CliError('No enrollment token: set HUB_ENROLLMENT_TOKEN or pipe the token on standard input.', 2);
  if (!token.startsWith(TOKEN_PREFIX)) {
    const hint =
      token.startsWith('hub_pk_') || token.startsWith('hub_cli_')
        ? ': that is a credential that issues enrollment tokens, not one'
        : '';
    throw new CliError(`That is not an enrollment token (they start with ${TOKEN_PREFIX})${hint}.`, 2);
  }
  return token;
}

async function firstLine(input: Readable): Promise<string | undefined> {
  const lines = createInterface({ input, crlfDelay: Infinity, terminal: false });
  try {
    for await (const line of lines) return line;
    return undefined;
  } finally {
    lines.close();
    // Nothing more is read; an open standard input would keep the process alive.
    input.destroy();
  }
}

function enrollmentFailure(error: unknown, origin: string, name: string, replace: boolean): Error {
  if (error instanceof HubUnreachable) return new CliError(`Enrollment with ${origin} failed: ${error.message}.`);
  if (!(error instanceof HubError)) return error as Error;
  const request = error.problem.requestId === undefined ? '' : ` (request id ${error.problem.requestId})`;
  switch (error.status) {
    case 401:
      return new CliError(
        `The hub refused the enrollment token: ${error.problem.detail ?? 'it is unknown, used, expired or revoked'}${request}`,
      );
    case 409:
      // With --replace, a 409 is the hub refusing the replacement (a member replaces only the daemons they enrolled).
      if (replace)
        return new CliError(
          `The hub refused to replace the daemon "${name}": ${error.problem.detail ?? error.message} (the token was not used up).${request}`,
        );
      return new CliError(
        `An active daemon of the organization is already named "${name}". To retire it and enroll this machine in its place, run again with --replace (the token was not used up).${request}`,
      );
    case 400: {
      const issues = (error.problem.issues ?? [])
        .map((issue) => `\n  ${issue.pointer || '/'}: ${issue.message}`)
        .join('');
      return new CliError(
        `The hub refused the enrollment request: ${error.problem.detail ?? error.message}${issues}${request}`,
      );
    }
    default:
      return new CliError(`Enrollment with ${origin} failed: ${error.message}${request}`);
  }
}

function describeRuntime(runtime: Runtime): string {
  const details = [
    runtime.modes && `modes ${runtime.modes.join(', ')}`,
    runtime.models && `models ${runtime.models.join(', ')}`,
  ].filter(Boolean);
  return details.length === 0 ? runtime.provider : `${runtime.provider} (${details.join('; ')})`;
}
