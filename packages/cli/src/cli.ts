// `hub`: the command tree and the one place where failures become messages and exit codes.
import { group, type Command, type Io } from './command.js';
import { CliError, UsageError } from './errors.js';
import { exitCodes } from './help.js';
import { cliVersion } from './version.js';

/**
 * A command that loads its module only when it runs, so that `hub --help` and `hub validate`
 * start without the HTTP client, the daemon, the browser opener and the rest. Its name and
 * summary are the module's own (a test compares them).
 */
function lazy(name: string, summary: string, load: () => Promise<Command>, subcommands?: string[]): Command {
  return {
    name,
    summary,
    ...(subcommands === undefined ? {} : { subcommands }),
    run: async (args, io) => (await load()).run(args, io),
  };
}

/** The commands of `hub`, in the order its help lists them. */
export const commands: Command[] = [
  lazy(
    'login',
    'Log in to a hub in the browser and store the credential',
    async () => (await import('./commands/login.js')).login,
  ),
  lazy('logout', 'Remove the credential stored for a hub', async () => (await import('./commands/logout.js')).logout),
  lazy('auth', 'Show the stored logins (status)', async () => (await import('./commands/auth.js')).auth, ['status']),
  lazy(
    'projects',
    'List the active projects of the organization',
    async () => (await import('./commands/projects.js')).projects,
  ),
  lazy(
    'validate',
    'Check the hub files of a repository offline (for pre-commit)',
    async () => (await import('./commands/validate.js')).validate,
  ),
  lazy(
    'deploy',
    'Install the hub files of a repository (triggers, or a project configuration)',
    async () => (await import('./commands/deploy.js')).deploy,
  ),
  lazy(
    'connect',
    'Enroll this machine as a daemon of a hub, with the CLI credential',
    async () => (await import('./commands/connect.js')).connect,
  ),
  lazy('run', 'Dispatch a manual run; --follow shows its output', async () => (await import('./commands/run.js')).run),
  lazy('runs', 'List runs, newest first', async () => (await import('./commands/runs.js')).runs),
  lazy('logs', "Show a run's output; --follow shows it live", async () => (await import('./commands/logs.js')).logs),
  lazy('cancel', 'Cancel a run', async () => (await import('./commands/cancel.js')).cancel),
  lazy(
    'daemon',
    'Run coding agents on this machine for a hub (enroll, run)',
    async () => (await import('./commands/daemon.js')).daemon,
    ['enroll', 'run'],
  ),
  lazy(
    'lsp',
    'Run the language server for editors (hub lsp --stdio)',
    async () => (await import('./commands/lsp.js')).lsp,
  ),
  lazy('completion', 'Print a shell completion script (bash, zsh, fish)', async () =>
    (await import('./commands/completion.js')).completion.of(commands),
  ),
];

const hub = group({
  name: 'hub',
  path: 'hub',
  summary: 'The Hub command-line client',
  help: (listing) => `hub: the Hub command-line client.

Usage: hub <command> [options]

Commands:
${listing}

Options:
  -h, --help   Show this help
  --version    Print the version of hub

Run "hub help <command>" or "hub <command> --help" for the help of a command.

${exitCodes('success', 'failure: the hub refused or could not be reached')}`,
  commands,
  options: {
    '--version': (io) => {
      io.stdout.write(`${cliVersion()}\n`);
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
