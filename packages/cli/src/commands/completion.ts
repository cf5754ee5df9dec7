// `hub completion bash|zsh|fish`: a static completion script for the names of hub's commands
// and sub-commands, made from the listing in cli.ts (so a new command completes without edits here).
// cli.ts hands the listing over (`completion.of(commands)`): importing it would import the entry.
import { parseOptions, type Command } from '../command.js';
import { UsageError } from '../errors.js';
import { exitCodes } from '../help.js';

const COMMAND = 'hub completion';
const SHELLS = ['bash', 'zsh', 'fish'] as const;
type Shell = (typeof SHELLS)[number];

const help = `${COMMAND}: print a shell completion script for hub's commands.

Usage: ${COMMAND} bash|zsh|fish

The script completes the command names ("hub dep<Tab>" gives "hub deploy"), the sub-commands
of "hub daemon" and "hub auth", the shells of "hub completion" and the commands of "hub help";
other arguments complete as file names. It is static: print it again after updating hub.

Install:
  bash   in ~/.bashrc:                   source <(hub completion bash)
  zsh    in ~/.zshrc, after compinit:    source <(hub completion zsh)
         or as a file in $fpath:         hub completion zsh > "\${fpath[1]}/_hub"
  fish   once:                           hub completion fish > ~/.config/fish/completions/hub.fish

Options:
  -h, --help   Show this help

${exitCodes('the script was printed', 'never')}`;

/** Every name completed after `hub <command>`, by command: its sub-commands, the shells, or the commands for `hub help`. */
function table(commands: readonly Command[]): {
  names: string[];
  summaries: Map<string, string>;
  after: Map<string, string[]>;
} {
  const names = [...commands.map((command) => command.name), 'help'];
  const summaries = new Map([
    ...commands.map((command) => [command.name, command.summary] as const),
    ['help', 'Show the help of hub or of a command'],
  ]);
  const after = new Map<string, string[]>([['help', commands.map((command) => command.name)]]);
  for (const command of commands) if (command.subcommands !== undefined) after.set(command.name, command.subcommands);
  after.set('completion', [...SHELLS]);
  return { names, summaries, after };
}

function bash(commands: readonly Command[]): string {
  const { names, after } = table(commands);
  const cases = [...after].map(([name, words]) => `      ${name}) words="${words.join(' ')}" ;;`).join('\n');
  return `# hub completion for bash: source <(hub completion bash)
_hub() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" words=""
  if [ "$COMP_CWORD" -eq 1 ]; then
    words="${names.join(' ')}"
  elif [ "$COMP_CWORD" -eq 2 ]; then
    case "\${COMP_WORDS[1]}" in
${cases}
    esac
  fi
  COMPREPLY=()
  [ -n "$words" ] && COMPREPLY=($(compgen -W "$words" -- "$cur"))
  return 0
}
complete -o default -F _hub hub
`;
}

function zsh(commands: readonly Command[]): string {
  const { names, after } = table(commands);
  const cases = [...after].map(([name, words]) => `      ${name}) compadd -- ${words.join(' ')} ;;`).join('\n');
  return `#compdef hub
# hub completion for zsh: source <(hub completion zsh) after compinit, or save as _hub in $fpath
_hub() {
  if (( CURRENT == 2 )); then
    compadd -- ${names.join(' ')}
  elif (( CURRENT == 3 )); then
    case "$words[2]" in
${cases}
      *) _files ;;
    esac
  else
    _files
  fi
}
if [ "$funcstack[1]" = "_hub" ]; then
  _hub "$@"
else
  compdef _hub hub
fi
`;
}

function fish(commands: readonly Command[]): string {
  const { names, summaries, after } = table(commands);
  const quote = (text: string) => `'${text.replace(/[\\']/g, '\\$&')}'`;
  const lines = names.map(
    (name) => `complete -c hub -n __fish_use_subcommand -f -a ${name} -d ${quote(summaries.get(name) ?? '')}`,
  );
  for (const [name, words] of after)
    lines.push(`complete -c hub -n '__fish_seen_subcommand_from ${name}' -f -a ${quote(words.join(' '))}`);
  return `# hub completion for fish: hub completion fish > ~/.config/fish/completions/hub.fish\n${lines.join('\n')}\n`;
}

const SCRIPTS: Record<Shell, (commands: readonly Command[]) => string> = { bash, zsh, fish };

const SUMMARY = 'Print a shell completion script (bash, zsh, fish)';

/** `hub completion` for the commands of `commands` (hub's listing). */
export const completion = {
  name: 'completion',
  summary: SUMMARY,
  of: (commands: readonly Command[]): Command => ({
    name: 'completion',
    summary: SUMMARY,
    async run(args, io) {
      const { values, positionals } = parseOptions(COMMAND, args, {}, 1);
      if (values.help) {
        io.stdout.write(help);
        return 0;
      }
      const [shell] = positionals;
      if (shell === undefined) throw new UsageError('Name a shell: bash, zsh or fish.', COMMAND);
      if (!(SHELLS as readonly string[]).includes(shell))
        throw new UsageError(`Unknown shell "${shell}": give bash, zsh or fish.`, COMMAND);
      io.stdout.write(SCRIPTS[shell as Shell](commands));
      return 0;
    },
  }),
};
