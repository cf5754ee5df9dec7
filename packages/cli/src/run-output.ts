// Where a run's output goes: the agent's output (its stdout and stderr, in the order the daemon
// read them) to standard output exactly as it came, and the CLI's own lines about steps and runs
// to standard error, so that `hub logs RUN > log.txt` holds what the agent printed and nothing else.
import { once } from 'node:events';
import type { Execution, Run } from '@hub/schemas';
import type { Io } from './command.js';
import { runStatusLine, stepEnd, stepHeader } from './run-view.js';

export type StepEnd = Pick<Execution, 'status' | 'exitCode' | 'message'>;

export class RunOutput {
  /** Whether the agent's output so far ends a line; a note then starts on a line of its own. */
  private atLineStart = true;

  constructor(protected readonly io: Io) {}

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

  /** A step's execution starts: which step, on which daemon. */
  stepStarted(execution: Pick<Execution, 'stepId' | 'daemon' | 'executionId'>): void {
    this.note(stepHeader(execution));
  }

  /** The hub cut `bytes` of the step's output here (it keeps the first and the last 5 MiB). */
  cut(bytes: number | undefined): void {
    this.note(
      `==> ${bytes === undefined ? 'some bytes' : `${bytes} bytes`} of output cut here by the hub (it keeps the first and the last 5 MiB of a step's output)\n`,
    );
  }

  stepEnded(execution: Pick<Execution, 'stepId' | 'executionId'>, end: StepEnd): void {
    this.note(stepEnd(execution.stepId, end));
  }

  /** The run has ended (or, without --follow, is as shown). */
  runEnded(run: Run): void {
    this.note(runStatusLine(run));
  }
}

/**
 * `hub logs RUN --follow --json`: the same lines for people on standard error, and on standard
 * output one JSON object a line (NDJSON) for each event: a step starts, output, a cut, a step
 * ends, and the run as it ended.
 */
export class JsonLinesRunOutput extends RunOutput {
  private executionId = '';

  constructor(
    io: Io,
    private readonly origin: string,
  ) {
    super(io);
  }

  /** Output events carry text: the hub's event stream sends it as text. */
  override async agent(chunk: string | Uint8Array): Promise<void> {
    if (chunk.length === 0) return;
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    if (!this.line({ type: 'output', executionId: this.executionId, text })) await once(this.io.stdout, 'drain');
  }

  override stepStarted(execution: Pick<Execution, 'stepId' | 'daemon' | 'executionId'>): void {
    super.stepStarted(execution);
    this.executionId = execution.executionId;
    this.line({ type: 'step', stepId: execution.stepId, executionId: execution.executionId, daemon: execution.daemon });
  }

  override cut(bytes: number | undefined): void {
    super.cut(bytes);
    this.line({ type: 'cut', executionId: this.executionId, bytes: bytes ?? null });
  }

  override stepEnded(execution: Pick<Execution, 'stepId' | 'executionId'>, end: StepEnd): void {
    super.stepEnded(execution, end);
    this.line({
      type: 'step_end',
      stepId: execution.stepId,
      executionId: execution.executionId,
      status: end.status,
      exitCode: end.exitCode,
      message: end.message,
    });
  }

  override runEnded(run: Run): void {
    super.runEnded(run);
    this.line({ type: 'run', origin: this.origin, run });
  }

  /** Whether standard output took it without filling up. */
  private line(event: Record<string, unknown>): boolean {
    return this.io.stdout.write(`${JSON.stringify(event)}\n`);
  }
}
