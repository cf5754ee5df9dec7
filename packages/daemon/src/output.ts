// Sends an execution's output to the hub (POST /api/v1/daemon/executions/{id}/output): numbered
// chunks, batched, one request at a time, retried with the same numbers until the hub has them,
// so that none is lost, stored twice or out of order across outages (DECISIONS.md, issue 13).
import { Backoff, sleep, type Outage } from './backoff.js';
import { isTransient, retryAfterMs, type HubClient, type OutputChunk } from './client.js';
import { LineCutter } from './lines.js';
import { OutputQueue } from './output-queue.js';

export type OutputStream = OutputChunk['stream'];

export interface OutputLimits {
  /** A batch goes at most this long after the one before, and at once when it is full. */
  batchMs: number;
  /** A partial line waits this long for its end, then goes as it is. */
  partialLineMs: number;
  /** Unsent output kept per execution while the hub cannot be reached; beyond it, the oldest is dropped. */
  maxUnsentBytes: number;
  /** How long `finish` waits for the hub to take the rest, counted from its last answer. */
  flushMs: number;
}

/**
 * 100 ms between batches: a line waits at most that for its request, which keeps the delay from
 * the agent to a reader on another hub instance under 250 ms at p99 (bench:output: 250 ms
 * batches put it at 252–256 ms), at no more than 10 requests a second per execution.
 */
export const DEFAULT_OUTPUT_LIMITS: OutputLimits = {
  batchMs: 100,
  partialLineMs: 250,
  maxUnsentBytes: 8 * 1024 * 1024,
  flushMs: 10_000,
};

const STREAMS = ['stdout', 'stderr'] as const;

export class OutputShipper {
  private readonly cutters: Record<OutputStream, LineCutter> = { stdout: new LineCutter(), stderr: new LineCutter() };
  private readonly queue: OutputQueue;
  private nextSeq = 0;
  /** Bytes of the batch under way; undefined when none is. */
  private sending: number | undefined;
  private lastSentAt = -Infinity;
  private lastAnswerAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private ended = false;
  /** Nothing more is sent: the hub refused the output, or the daemon stopped. */
  private halted = false;
  private readonly stopped = new AbortController();
  private markSent: () => void = () => {};
  /** Resolves once everything was sent after the end, or nothing more will be. */
  readonly sent = new Promise<void>((resolve) => (this.markSent = resolve));

  constructor(
    private readonly client: HubClient,
    private readonly executionId: string,
    private readonly outage: Outage,
    private readonly log: (message: string) => void,
    private readonly limits: OutputLimits = DEFAULT_OUTPUT_LIMITS,
  ) {
    this.queue = new OutputQueue(limits.maxUnsentBytes);
  }

  /** What the agent wrote to `stream`, as it came. */
  write(stream: OutputStream, data: Buffer): void {
    if (this.ended || this.halted) return;
    const now = Date.now();
    for (const text of this.cutters[stream].push(data, now)) this.enqueue({ stream, at: now, text });
    this.schedule();
  }

  /**
   * The agent is gone: sends the rest, and resolves once the hub has all of it, or once the hub
   * has taken none for `flushMs`; then the rest goes on being sent until the hub takes it or `stop`.
   */
  async finish(): Promise<void> {
    if (!this.ended) {
      this.ended = true;
      this.lastAnswerAt = Date.now();
      for (const stream of STREAMS) this.enqueueRest(stream, true);
      this.schedule();
    }
    if (await this.sentWithin()) return;
    this.log(
      `Execution ${this.executionId}: the hub has not taken its output for ${this.limits.flushMs / 1_000} s; its status goes first, and the rest of its output (${this.pendingBytes()} bytes) when the hub takes it.`,
    );
  }

  /** Sends nothing more; says what was left unsent. */
  stop(): void {
    if (this.halted) return;
    const left = this.pendingBytes();
    if (left > 0)
      this.log(
        `Execution ${this.executionId}: ${left} bytes of output not sent: the daemon stopped before the hub took them.`,
      );
    this.halt();
  }

  private halt(): void {
    this.halted = true;
    this.stopped.abort();
    clearTimeout(this.timer);
    this.markSent();
  }

  private enqueue(piece: { stream: OutputStream; at: number; text: string }): void {
    if (this.queue.push(piece)) {
      this.log(
        `Execution ${this.executionId}: more than ${this.limits.maxUnsentBytes} bytes of output wait for the hub; dropping the oldest until it answers.`,
      );
    }
  }

  /** The partial line of `stream` as it is; with `end`, whatever the stream still held. */
  private enqueueRest(stream: OutputStream, end: boolean): void {
    const now = Date.now();
    for (const text of this.cutters[stream].takeRest(end)) this.enqueue({ stream, at: now, text });
  }

  /** Cuts the partial lines that waited long enough, sends a batch when one is due, else sets a timer for the next thing due. */
  private schedule(): void {
    clearTimeout(this.timer);
    if (this.halted) return;
    const now = Date.now();
    let next = Infinity;
    for (const stream of STREAMS) {
      const since = this.cutters[stream].restSince;
      if (since === undefined) continue;
      if (since + this.limits.partialLineMs <= now) this.enqueueRest(stream, false);
      else next = Math.min(next, since + this.limits.partialLineMs);
    }
    if (this.sending === undefined && this.queue.length > 0) {
      const due = this.ended || this.queue.full ? now : this.lastSentAt + this.limits.batchMs;
      if (due <= now) return void this.send();
      next = Math.min(next, due);
    }
    if (next !== Infinity) this.timer = setTimeout(() => this.schedule(), next - now);
    else if (this.ended && this.sending === undefined) this.markSent();
  }

  /** One batch, sent until the hub has it (with the same numbers each time), then whatever is due next. */
  private async send(): Promise<void> {
    this.lastSentAt = Date.now();
    const { chunks, droppedBytes } = this.queue.take(this.nextSeq);
    this.nextSeq += chunks.length;
    this.sending = chunks.reduce((sum, chunk) => sum + Buffer.byteLength(chunk.text), 0);
    if (droppedBytes !== undefined)
      this.log(`Execution ${this.executionId}: ${droppedBytes} bytes of output dropped: the hub could not be reached.`);
    const backoff = new Backoff();
    for (;;) {
      try {
        const nextSeq = await this.client.appendOutput(this.executionId, chunks, this.stopped.signal);
        this.outage.succeeded();
        this.lastAnswerAt = Date.now();
        // Above ours only if the hub kept output of an earlier try of this execution: go on after it.
        this.nextSeq = Math.max(this.nextSeq, nextSeq);
        break;
      } catch (error) {
        if (this.halted) return;
        if (!isTransient(error)) {
          this.log(
            `Execution ${this.executionId}: the hub refused its output (${(error as Error).message}); the rest of it is not sent.`,
          );
          return this.halt();
        }
        this.outage.failed((error as Error).message);
        await sleep(backoff.next(retryAfterMs(error)), AbortSignal.any([this.stopped.signal, this.outage.recovered]));
        if (this.halted) return;
      }
    }
    this.sending = undefined;
    this.schedule();
  }

  /** Bytes read and not yet taken by the hub: in the batch under way and after it. */
  private pendingBytes(): number {
    return this.queue.bytes + (this.sending ?? 0);
  }

  /** True once everything was sent, false once the hub has taken nothing for `flushMs`. */
  private sentWithin(): Promise<boolean> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const check = () => {
        const left = this.lastAnswerAt + this.limits.flushMs - Date.now();
        if (left > 0) timer = setTimeout(check, left);
        else resolve(false);
      };
      void this.sent.then(() => {
        clearTimeout(timer);
        resolve(true);
      });
      check();
    });
  }
}
