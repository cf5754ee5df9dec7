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
directory from it up that holds .hub/ or .git). It also offers quick fixes for "did you mean",
completion and hover. As with "hub validate", no hub is asked: whether daemons, agent
providers, modes and models exist is not checked.

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

Environment: none (no hub is asked, no credential is read).

Exit codes:
  0  the editor asked to shut down, then to exit
  1  the editor exited or closed the connection without asking to shut down first
  2  usage error: an unknown option, no --stdio
`;

export const lsp: Command = {
  name: 'lsp',
  summary: 'Run the language server for editors (hub lsp --stdio)',
  async run(args, io) {
    const { values } = parseOptions(COMMAND, args, { stdio: { type: 'boolean' }, clientProcessId: { type: 'string' } }, 0);
    if (values.help) {
      io.stdout.write(help);
      return 0;
    }
    if (values.stdio !== true) throw new UsageError('Give --stdio: editors start the server with it and speak LSP on standard input and output.', COMMAND);
    const { serve } = await import('../lsp/server.js');
    return serve(io.stdin, io.stdout);
  },
};
