// Waiting out a hub that is down or restarting, without hammering it or flooding the log.
import { setTimeout as delay } from 'node:timers/promises';

const FIRST_MS = 500;
const MAX_MS = 30_000;

/**
 * Exponential backoff, 0.5 s doubling to 30 s. Each wait is drawn between half and all of the
 * current step, so that daemons cut off by one outage do not all come back in the same instant.
 */
export class Backoff {
  private attempt = 0;

  next(): number {
    const step = Math.min(MAX_MS, FIRST_MS * 2 ** this.attempt);
    this.attempt = Math.min(this.attempt + 1, 16);
    return step / 2 + Math.random() * (step / 2);
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

  constructor(private readonly log: (message: string) => void) {}

  failed(reason: string): void {
    if (this.since !== undefined) return;
    this.since = Date.now();
    this.log(`The hub is unavailable (${reason}); retrying with backoff until it answers.`);
  }

  succeeded(): void {
    if (this.since === undefined) return;
    this.log(`The hub answers again after ${Math.round((Date.now() - this.since) / 1_000)} s.`);
    this.since = undefined;
  }
}
