import type { Sql } from 'postgres';
import type { Logger } from '../http/logger.js';
import type { Listening } from './listener.js';
import { databaseUnavailable, type DatabaseHealth } from './health.js';

export interface WakeLoopOptions {
  sql: Sql;
  /** Its name in the log: `scheduler`, `github worker`. */
  name: string;
  /** The NOTIFY channel that wakes it at once; without one, it wakes when its turn said. */
  channel?: string;
  /** Where it LISTENs (db/listener.ts); `sql` unless given. Polling: no sleep lasts longer than its `pollMs`. */
  listener?: Listening | undefined;
  log: Logger;
  health?: DatabaseHealth;
  /** One look; returns how long to sleep before the next, unless a NOTIFY comes first. */
  turn: () => Promise<number>;
}

/** How long the loop waits after a failed turn, and between looks while the database is known to be down. */
const FAILURE_SLEEP_MS = 1_000;

/**
 * A background worker of every instance (the scheduler, the GitHub worker): it takes a turn, then
 * sleeps for as long as the turn says or until a NOTIFY on its channel. It never spins: a NOTIFY
 * during a turn that went through starts the next turn at once, but after a failure, or while the
 * database is known to be down, the second's wait comes first (such a loop once blocked a hub's
 * event loop, and its SIGTERM, when a NOTIFY came while its database was away).
 */
export async function startWakeLoop(
  options: WakeLoopOptions,
): Promise<{ /** Another turn at once, as a NOTIFY would. */ wake(): void; close(): Promise<void> }> {
  const { log, name } = options;
  let closed = false;
  let nudged = false;
  let wakeUp: (() => void) | undefined;
  const nudge = () => {
    nudged = true;
    wakeUp?.();
  };
  const listener: Listening = options.listener ?? options.sql;
  const unlisten =
    options.channel === undefined ? async () => {} : (await listener.listen(options.channel, nudge, nudge)).unlisten;
  // Polling: what a NOTIFY would have woken is looked for at least this often.
  const longestSleepMs = options.channel === undefined ? Infinity : (listener.pollMs ?? Infinity);

  let waiting = false;
  const loop = (async () => {
    while (!closed) {
      let sleepMs = FAILURE_SLEEP_MS;
      let looked = false;
      if (options.health?.down !== true) {
        try {
          nudged = false;
          sleepMs = await options.turn();
          if (waiting) log.info(`${name}: running again: the database answers`);
          waiting = false;
          looked = true;
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          if (!databaseUnavailable(error)) log.error(`${name} failed`, { error: message });
          else {
            options.health?.report(error);
            if (!waiting) log.warn(`${name} waits: the database is unavailable`, { error: message });
            waiting = true;
          }
          sleepMs = FAILURE_SLEEP_MS;
        }
      }
      if (closed || (nudged && looked)) continue;
      nudged = false;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(sleepMs, longestSleepMs));
        wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wakeUp = undefined;
    }
  })();

  return {
    wake: nudge,
    async close() {
      closed = true;
      wakeUp?.();
      await loop;
      await unlisten().catch(() => {});
    },
  };
}
