// Where a run's output goes: the agent's output (its stdout and stderr, in the order the daemon
// read them) to standard output exactly as it came, and the CLI's own lines about steps and runs
// to standard error, so that `hub logs RUN > log.txt` holds what the agent printed and nothing else.
import { once } from 'node:events';
import type { Io } from './command.js';

export class RunOutput {
  /** Whether the agent's output so far ends a line; a note then starts on a line of its own. */
  private atLineStart = true;

  constructor(private readonly io: Io) {}

  /** Agent output, as is; waits while standard output is full, so a slow reader never makes it pile up here. */
  async agent(chunk: string | Uint8Array): Promise<void> {
    if (chunk.length === 0) return;
    this.atLineStart = typeof chunk === 'string' ? chunk.endsWith('\n') : chunk[chunk.length - 1] === 0x0a;
    if (!this.io.stdout.write(chunk)) await once(this.io.stdout, 'drain');
  }

  /** One of the CLI's own lines (ending in a newline), on standard error. */
  note(line: string): void {
    this.io.stderr.write(this.atLineStart ? line : `\n${line}`);
    this.atLineStart = true;
  }
}
