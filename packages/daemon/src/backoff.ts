// Waiting out a hub that is down or restarting, without hammering it or flooding the log.
import { setTimeout as delay } from 'node:timers/promises';

const FIRST_MS = 500;
const MAX_MS = 30_000;
/**
 * The largest step after an answer with Retry-After: the hub is up and says when to come back
 * (its database is away, it is busy, or it throttles), so it is asked at least this often.
 */
const ANSWERED_MAX_MS = 8_000;

/**
 * Exponential backoff, 0.5 s doubling to 30 s (8 s while the hub answers with Retry-After). Each
 * wait is drawn between half and all of the current step, so that daemons cut off by one outage
 * do not all come back in the same instant; and it is never shorter than the hub's Retry-After,
 * itself spread by up to half again.
 */
export class Backoff {
  private attempt = 0;

  /** The next wait in ms; `floorMs` is the answer's Retry-After (0 without one). */
  next(floorMs = 0): number {
    const step = Math.min(floorMs > 0 ? ANSWERED_MAX_MS : MAX_MS, FIRST_MS * 2 ** this.attempt);
    this.attempt = Math.min(this.attempt + 1, 16);
    const wait = step / 2 + Math.random() * (step / 2);
    return Math.max(wait, floorMs + Math.random() * (floorMs / 2));
  }

  reset(): void {
    this.attempt = 0;
  }
}

/** Sleeps `ms`; resolves early, with false, when `signal` aborts. */
export async function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  try {
    await delay(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

/**
 * The daemon's view of whether the hub answers, shared by all its requests: an outage (no answer,
 * 5xx, any answer but success or 401) is logged when the first request fails and again when one
 * succeeds, not at every attempt.
 */
export class Outage {
  private since: number | undefined;
  private recovery = new AbortController();

  constructor(private readonly log: (message: string) => void) {}

  /**
   * Aborts when a request succeeds after an outage: a retry waiting out its backoff goes at once,
   * instead of up to 30 s after the hub is back (by which time an execution's status would have
   * gone before its output). Each daemon's requests are spread already, so no crowd comes back at once.
   */
  get recovered(): AbortSignal {
    return this.recovery.signal;
  }

  failed(reason: string): void {
    if (this.since !== undefined) return;
    this.since = Date.now();
    this.log(`The hub is unavailable (${reason}); retrying with backoff until it answers.`);
  }

  succeeded(): void {
    if (this.since === undefined) return;
    this.log(`The hub answers again after ${Math.round((Date.now() - this.since) / 1_000)} s.`);
    this.since = undefined;
    this.recovery.abort();
    this.recovery = new AbortController();
  }
}
