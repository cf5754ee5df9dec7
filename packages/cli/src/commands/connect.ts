// `hub connect`: an enrollment token requested with the CLI's credential and handed to
// `hub daemon enroll` in memory, so that the token is never on a command line, in an
// environment or in a file.
import { Readable } from 'node:stream';
import type { WireSchema } from '@hub/schemas';
import { parseOptions, type Command, type Io } from '../command.js';
import { API_KEY_OPTION_HELP, CLIENT_ENV_HELP, CREDENTIALS_HELP, ORIGIN_ARGUMENT_HELP } from '../client-help.js';
import { configDir } from '../config-dir.js';
import { configFilePath, loadDaemonConfig } from '../daemon/config.js';
import { CliError, UsageError } from '../errors.js';
import { exitCodes, FILES_HELP } from '../help.js';
import { describeSource, hubRequest, renderProblem, resolveCredential, resolveOrigin } from '../hub-client.js';
import type { Unread } from '../unread.js';
import { daemonName, enroll } from './daemon-enroll.js';

const COMMAND = 'hub connect';

const help = `${COMMAND}: connect this machine to a hub as a daemon, with the CLI's credential.

Usage: ${COMMAND} [origin] --name NAME [--api-key KEY] [--replace] [--config FILE] [--json]

Requests a short-lived enrollment token from the hub (POST /api/v1/daemons/enrollment-tokens,
scope daemons:enroll) and enrolls this machine with it, as "hub daemon enroll" does: a key pair
is made here and the daemon identity stored in daemons.json. The token is passed in memory
only. There is no option for a token: to enroll with one you were given, use "hub daemon enroll".
Afterwards, start the daemon with "hub daemon run ORIGIN".

With --json, standard output gets only the object that "hub daemon enroll --json" prints
({ "origin", "daemonId", "name", "runtimes", "config", "identityFile", "replaced" }; "hub daemon
enroll --help" describes it), and not the line about the token.

Arguments:
${ORIGIN_ARGUMENT_HELP}

Options:
  --name NAME     The daemon's name in the organization, which configurations use (required):
                  1 to 63 lowercase letters, digits and hyphens, starting with a letter or digit
${API_KEY_OPTION_HELP}
  --replace       If an active daemon already has that name, retire it and take its place
  --config FILE   The daemon config (default: daemon.yml in the config dir); "hub daemon enroll
                  --help" describes it
  --json          Print JSON (above) instead of sentences
  -h, --help      Show this help

${CREDENTIALS_HELP}
${FILES_HELP}
${CLIENT_ENV_HELP}
Example:
  HUB_API_KEY=hub_pk_... ${COMMAND} https://hub.example.com --name dev-box
  hub daemon run https://hub.example.com

${exitCodes('enrolled', 'the hub refused the token request or the enrollment, or could not be reached', ',\n     no credential for the hub, no daemon config')}`;

export const connect: Command = {
  name: 'connect',
  summary: 'Enroll this machine as a daemon of a hub, with the CLI credential',
  async run(args, io) {
    if (args.some((arg) => /^--[\w-]*token/i.test(arg))) {
      throw new UsageError(
        `${COMMAND} takes no token: it requests one with the credential. To enroll with a token you were given, use "hub daemon enroll".`,
        COMMAND,
      );
    }
    const { values, positionals } = parseOptions(
      COMMAND,
      args,
      {
        name: { type: 'string' },
        'api-key': { type: 'string' },
        replace: { type: 'boolean' },
        config: { type: 'string' },
        json: { type: 'boolean' },
      },
      1,
    );
    if (values.help) {
      io.stdout.write(help);
      return 0;
    }
    const name = daemonName(values.name, COMMAND);
    // Every mistake the enrollment would find here is found before a token is issued.
    await loadDaemonConfig(configFilePath(values.config, configDir(io.env)));
    const origin = await resolveOrigin(positionals[0], io);
    const credential = await resolveCredential(origin, values['api-key'], io);

    const answer = await hubRequest(origin, credential.token, 'POST', '/api/v1/daemons/enrollment-tokens', '{}');
    if (answer.status !== 201)
      throw new CliError(`The hub did not issue an enrollment token: ${renderProblem(answer)}`);
    const token = (answer.body as Unread<WireSchema<'EnrollmentToken'>> | undefined)?.token;
    if (typeof token !== 'string' || !token.startsWith('hub_et_'))
      throw new CliError(`The hub at ${origin} answered with something other than an enrollment token.`);
    if (!values.json)
      io.stdout.write(`Enrollment token issued by ${origin} (with ${describeSource(credential.source)}).\n`);

    const enrollArgs = [
      origin,
      '--name',
      name,
      ...(values.replace ? ['--replace'] : []),
      ...(values.config === undefined ? [] : ['--config', values.config]),
      ...(values.json ? ['--json'] : []),
    ];
    return enroll.run(enrollArgs, withToken(io, token));
  },
};

/** The same process, with the token as the first line of standard input and no other source of one. */
function withToken(io: Io, token: string): Io {
  const env = { ...io.env };
  delete env.HUB_ENROLLMENT_TOKEN;
  return { ...io, env, stdin: Readable.from([`${token}\n`]) };
}
