// Commands and groups of commands (`hub daemon run`): each parses its own options with
// util.parseArgs; a group routes to the command named by its first argument.
import type { Readable, Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { closest } from '@hub/schemas';
import { UsageError } from './errors.js';

/** Everything a command may use of its process; only main.ts builds it from the real one. */
export interface Io {
  env: Record<string, string | undefined>;
  stdin: Readable & { isTTY?: boolean };
  /** `isTTY` when it is a terminal: `hub login` opens a browser only for a person at one. */
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable;
  /**
   * From the first call on, SIGINT and SIGTERM abort the returned signal (reason: "received
   * SIGTERM") instead of ending the process. Only commands that stop gracefully ask for it.
   */
  stopSignal(): AbortSignal;
}

export interface Command {
  name: string;
  /** One line, for the help of the group that holds it. */
  summary: string;
  /** The names of its own commands, for a group (`hub daemon`): shell completion offers them. */
  subcommands?: string[];
  /** Resolves with the exit code; throws CliError for a failure the user can act on. */
  run(args: string[], io: Io): Promise<number>;
}

/** The options a command takes: no short forms, no lists; `--help`/`-h` is added to all. */
type OptionSpec = Record<string, { type: 'string' } | { type: 'boolean' }>;
type Values<T extends OptionSpec> = { [K in keyof T]?: T[K] extends { type: 'string' } ? string : boolean } & {
  help?: boolean;
};

/**
 * util.parseArgs with its errors as usage errors of `command`, `--help`/`-h` on every command,
 * and at most `maxPositionals` arguments.
 */
export function parseOptions<T extends OptionSpec>(
  command: string,
  args: string[],
  options: T,
  maxPositionals: number,
): { values: Values<T>; positionals: string[] } {
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({
      args,
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    const message = (error as Error).message.replace(/\. To specify a positional argument.*$/s, '.');
    // A mistyped long option gets the closest one, as a mistyped command does (--dryrun: --dry-run).
    const unknown = /^Unknown option '--([^'=]+)'/.exec(message)?.[1];
    const close = unknown === undefined ? undefined : closest(unknown, [...Object.keys(options), 'help']);
    throw new UsageError(
      close === undefined ? message : `${message.replace(/\.$/, '')}; did you mean --${close}?`,
      command,
    );
  }
  if (parsed.positionals.length > maxPositionals) {
    throw new UsageError(`Unexpected argument "${parsed.positionals[maxPositionals]}".`, command);
  }
  return { values: parsed.values as Values<T>, positionals: parsed.positionals };
}

/** A command made of commands: `hub`, `hub daemon`. `options` are the group's own, such as `--version`. */
export function group(spec: {
  name: string;
  path: string;
  summary: string;
  help: (commands: string) => string;
  commands: Command[];
  options?: Record<string, (io: Io) => number>;
}): Command {
  // The summaries start in one column, past the longest name (completion, in hub's listing).
  const width = Math.max(...spec.commands.map((command) => command.name.length)) + 2;
  const listing = spec.commands.map((command) => `  ${command.name.padEnd(width)} ${command.summary}`).join('\n');
  const names = spec.commands.map((command) => command.name);
  const find = (name: string): Command => {
    const command = spec.commands.find((candidate) => candidate.name === name);
    if (command !== undefined) return command;
    // `hub version` is `hub --version`: a group's option, named as a command.
    const close =
      closest(name, names) ??
      (spec.options !== undefined && Object.hasOwn(spec.options, `--${name}`) ? `--${name}` : undefined);
    throw new UsageError(
      `Unknown command "${name}"${close === undefined ? '.' : `; did you mean ${close}?`}`,
      spec.path,
    );
  };
  return {
    name: spec.name,
    summary: spec.summary,
    subcommands: names,
    async run(args, io) {
      const [first, ...rest] = args;
      // `hub help` is `hub --help`; `hub help deploy` is `hub deploy --help` (unless a command is named help).
      if (first === 'help' && !names.includes('help')) {
        if (rest.length === 0) {
          io.stdout.write(spec.help(listing));
          return 0;
        }
        const [name, ...more] = rest as [string, ...string[]];
        return find(name).run([...more, '--help'], io);
      }
      if (first === '--help' || first === '-h') {
        io.stdout.write(spec.help(listing));
        return 0;
      }
      if (first === undefined) {
        io.stderr.write(spec.help(listing));
        return 2;
      }
      if (first.startsWith('-')) {
        const option =
          spec.options !== undefined && Object.hasOwn(spec.options, first) ? spec.options[first] : undefined;
        if (option === undefined) {
          const close = first.startsWith('--')
            ? closest(
                first.slice(2),
                [...Object.keys(spec.options ?? {}), '--help'].map((known) => known.slice(2)),
              )
            : undefined;
          throw new UsageError(
            `Unknown option "${first}"${close === undefined ? '.' : `; did you mean --${close}?`}`,
            spec.path,
          );
        }
        if (rest.length > 0) throw new UsageError(`${first} takes no arguments.`, spec.path);
        return option(io);
      }
      return find(first).run(rest, io);
    },
  };
}
