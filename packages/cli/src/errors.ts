/**
 * A failure the user can act on. Commands throw it; the entry point prints the message (no stack)
 * and exits with `exitCode`: 2 for a usage or configuration mistake, 1 for anything else.
 */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
  }
}

/** A mistake in the command line itself: the message is followed by where to find the usage. */
export class UsageError extends CliError {
  constructor(
    message: string,
    /** The command whose `--help` to point at, such as `hub daemon run`. */
    readonly command = 'hub',
  ) {
    super(message, 2);
  }
}

/**
 * The person stopped the command (Ctrl-C, or SIGTERM): nothing to explain, and no stack. The
 * command says in one line what was left undone and exits 128 + the signal's number.
 */
export class Interrupted extends Error {
  readonly exitCode: number;

  constructor(reason: unknown) {
    super(String(reason));
    this.exitCode = String(reason).includes('SIGTERM') ? 143 : 130;
  }
}
