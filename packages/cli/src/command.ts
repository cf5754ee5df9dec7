// Commands and groups of commands (`hub daemon run`): each parses its own options with
// util.parseArgs; a group routes to the command named by its first argument.
import type { Readable, Writable } from 'node:stream';
import { parseArgs } from 'node:util';
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
  /** Resolves with the exit code; throws CliError for a failure the user can act on. */
  run(args: string[], io: Io): Promise<number>;
}

/** The options a command takes: no short forms, no lists; `--help`/`-h` is added to all. */
type OptionSpec = Record<string, { type: 'string' } | { type: 'boolean' }>;
type Values<T extends OptionSpec> = { [K in keyof T]?: T[K] extends { type: 'string' } ? string : boolean } & { help?: boolean };

/**
 * util.parseArgs with its errors as usage errors of `command`, `--help`/`-h` on every command,
 * and at most `maxPositionals` arguments.
 */
export function parseOptions<T extends OptionSpec>(command: string, args: string[], options: T, maxPositionals: number): { values: Values<T>; positionals: string[] } {
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({ args, options: { ...options, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message.replace(/\. To specify a positional argument.*$/s, '.'), command);
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
  const listing = spec.commands.map((command) => `  ${command.name.padEnd(10)}${command.summary}`).join('\n');
  return {
    name: spec.name,
    summary: spec.summary,
    async run(args, io) {
      const [first, ...rest] = args;
      if (first === '--help' || first === '-h') {
        io.stdout.write(spec.help(listing));
        return 0;
      }
      if (first === undefined) {
        io.stderr.write(spec.help(listing));
        return 2;
      }
      if (first.startsWith('-')) {
        const option = spec.options !== undefined && Object.hasOwn(spec.options, first) ? spec.options[first] : undefined;
        if (option === undefined) throw new UsageError(`Unknown option "${first}".`, spec.path);
        if (rest.length > 0) throw new UsageError(`${first} takes no arguments.`, spec.path);
        return option(io);
      }
      const command = spec.commands.find((candidate) => candidate.name === first);
      if (command === undefined) throw new UsageError(`Unknown command "${first}".`, spec.path);
      return command.run(rest, io);
    },
  };
}
