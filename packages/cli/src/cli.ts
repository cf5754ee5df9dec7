// `hub`: the command tree and the one place where failures become messages and exit codes.
import { readFileSync } from 'node:fs';
import { group, type Io } from './command.js';
import { auth } from './commands/auth.js';
import { cancel } from './commands/cancel.js';
import { connect } from './commands/connect.js';
import { daemon } from './commands/daemon.js';
import { deploy } from './commands/deploy.js';
import { login } from './commands/login.js';
import { logs } from './commands/logs.js';
import { logout } from './commands/logout.js';
import { projects } from './commands/projects.js';
import { run } from './commands/run.js';
import { runs } from './commands/runs.js';
import { validate } from './commands/validate.js';
import { CliError, UsageError } from './errors.js';
import { exitCodes } from './help.js';

const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

const hub = group({
  name: 'hub',
  path: 'hub',
  summary: 'The Hub command-line client',
  help: (commands) => `hub: the Hub command-line client.

Usage: hub <command> [options]

Commands:
${commands}

Options:
  -h, --help   Show this help
  --version    Print the version of hub

Run "hub <command> --help" for the help of a command.

${exitCodes('success', 'failure: the hub refused or could not be reached')}`,
  commands: [login, logout, auth, projects, validate, deploy, connect, run, runs, logs, cancel, daemon],
  options: {
    '--version': (io) => {
      io.stdout.write(`${VERSION}\n`);
      return 0;
    },
  },
});

/** Runs `hub` with `args` (without the program name); resolves with the exit code and never rejects for a CliError. */
export async function runCli(args: string[], io: Io): Promise<number> {
  try {
    return await hub.run(args, io);
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    io.stderr.write(`hub: ${error.message}\n`);
    if (error instanceof UsageError) io.stderr.write(`Run "${error.command} --help" for usage.\n`);
    return error.exitCode;
  }
}
