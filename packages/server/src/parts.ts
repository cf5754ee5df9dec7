// What a hub has started, to stop in reverse order: a stop always ends (docs/decisions.md, "A
// stop always ends").
import type { Logger } from './http/logger.js';

/**
 * How long the bounded parts may take to stop, together (past the webhook deliverer's attempts,
 * 10 s each). A database that stops answering (its host frozen, or cut off) holds a part's last
 * query for ever: past this, what still stops is left, the log names it, and the hub exits; the
 * parts after it still begin their stop, with LATE_PART_MS each.
 */
const STOP_MS = 25_000;
const LATE_PART_MS = 200;

interface Part {
  name: string;
  stop: () => Promise<unknown>;
  bounded: boolean;
}

export class Parts {
  private readonly running: Part[] = [];

  /** A started part; `bounded` unless its stop has a bound of its own (the drain, the embedded PostgreSQL). */
  add(name: string, stop: () => Promise<unknown>, { bounded = true } = {}): void {
    this.running.push({ name, stop, bounded });
  }

  /** Stops every part, last started first; the bounded ones within STOP_MS together. */
  async stopAll(log: Logger): Promise<void> {
    let deadline: number | undefined;
    for (const { name, stop, bounded } of this.running.reverse()) {
      const began = performance.now();
      if (bounded) deadline ??= began + STOP_MS;
      const boundMs = bounded ? Math.max((deadline as number) - began, LATE_PART_MS) : Infinity;
      try {
        if (!(await within(stop(), boundMs))) {
          log.error('a part did not stop in time; the hub exits without waiting for it', {
            name,
            waitedMs: Math.round(performance.now() - began),
          });
          continue;
        }
      } catch (error) {
        log.error('stopping failed', { name, error: String(error) });
      }
      log.debug('stopped part', { name, ms: Math.round(performance.now() - began) });
    }
    this.running.length = 0;
  }
}

/** Whether `stopping` settled within `ms` (a rejection is thrown). */
async function within(stopping: Promise<unknown>, ms: number): Promise<boolean> {
  if (ms === Infinity) return stopping.then(() => true);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([stopping.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}
