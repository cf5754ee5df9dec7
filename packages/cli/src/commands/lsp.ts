// `hub lsp --stdio`: the language server for .hub/**/*.yml, speaking LSP on standard input and
// output until the editor says exit.
import { parseOptions, type Command } from '../command.js';
import { UsageError } from '../errors.js';

const COMMAND = 'hub lsp';

const help = `${COMMAND}: a language server for the hub files of a repository (.hub/**/*.yml).

Usage: ${COMMAND} --stdio

Editors start it and speak the Language Server Protocol with it on standard input and output;
it is not for running by hand. It reports the issues "hub validate" reports, as you type, at
the same places: for .hub/config.yml and its partials, .hub/triggers/*.yml, and a legacy
.hub/hub.yml with .hub/workflows/*.yml and their partials. An issue in a partial is shown in
the partial. What is open in the editor is checked as it is in the editor, saved or not; other
files are read from the disk, from the repository of the workspace folder (the nearest
directory from it up that holds .hub/ or .git), or for a folder that holds repositories, from
theirs (a few levels down). It also offers quick fixes for "did you mean", completion and hover.

With a login (hub login, or HUB_URL and HUB_API_KEY), the hub is also asked, in the background,
whether the daemons, agent providers, modes and models that a valid file names exist (as
"hub deploy --dry-run" does): for trigger files, and for the configuration or legacy bundle when
the editor names its project in the initialization options ({ "project": "<slug>" }). Answers
are kept per file content; a keystroke never waits for one. Without a login, nothing is asked.

Options:
  --stdio                 Speak LSP on standard input and output (required)
  --clientProcessId PID   Accepted and ignored (some editors pass it)
  -h, --help              Show this help

Setup:
  VS Code   an extension that starts "hub lsp --stdio" for YAML files (editors/vscode in the
            hub's repository is a minimal one)
  Neovim    vim.lsp.start({ name = 'hub', cmd = { 'hub', 'lsp', '--stdio' },
                            root_dir = vim.fs.root(0, { '.hub', '.git' }) })
            in a FileType yaml autocommand
  Helix     in languages.toml: [language-server.hub] command = "hub", args = ["lsp", "--stdio"],
            and add "hub" to the language-servers of [[language]] name = "yaml"

Environment (only to find a login, as the other commands do):
  HUB_URL          the hub (default: the active stored login's)
  HUB_API_KEY      the credential (default: the one stored for the hub)
  HUB_CONFIG_DIR   where logins are stored (default: $XDG_CONFIG_HOME/hub or ~/.config/hub)

Exit codes:
  0  the editor asked to shut down, then to exit
  1  the editor exited or closed the connection without asking to shut down first
  2  usage error: an unknown option, no --stdio
`;

export const lsp: Command = {
  name: 'lsp',
  summary: 'Run the language server for editors (hub lsp --stdio)',
  async run(args, io) {
    const { values } = parseOptions(
      COMMAND,
      args,
      { stdio: { type: 'boolean' }, clientProcessId: { type: 'string' } },
      0,
    );
    if (values.help) {
      io.stdout.write(help);
      return 0;
    }
    if (values.stdio !== true)
      throw new UsageError(
        'Give --stdio: editors start the server with it and speak LSP on standard input and output.',
        COMMAND,
      );
    const { serve } = await import('../lsp/connection.js');
    return serve(io.stdin, io.stdout, io.env);
  },
};
