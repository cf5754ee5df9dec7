import type { Listening } from '../../db/listener.js';
import { ASSIGNMENT_CHANNEL } from './channels.js';

/** A long-poll's interest in its daemon's assignments, registered before it looks for one. */
export interface Watch {
  /**
   * Resolves when an assignment for the daemon may be waiting (a NOTIFY since the watch began or
   * since the last wait), after `ms`, or when the hub stops; `true` unless it timed out.
   */
  wait(ms: number): Promise<boolean>;
  /** Ends the watch; call it when the long-poll answers. */
  close(): void;
}

/**
 * Wakes the long-polls waiting on this instance when an assignment is created for their daemon
 * on any instance: PostgreSQL's NOTIFY (sent in the transaction that creates the execution, so
 * delivered on commit) reaches every instance's LISTEN connection. A long-poll watches before it
 * looks for an assignment, so a NOTIFY that comes between its look and its wait is not lost.
 */
export class Wakeups {
  private readonly watching = new Map<string, Set<WatchState>>();
  private closed = false;
  private unlisten: (() => Promise<void>) | undefined;
  private pollMs: number | undefined;

  /**
   * Listens on `channel`, whose payloads name what to wake (a daemon's id; an execution's id on
   * OUTPUT_CHANNEL). When the LISTEN connection is lost, postgres.js listens again once it can
   * reconnect; a NOTIFY sent in between reached nobody, so every waiter then looks again.
   */
  static async listen(listener: Listening, channel: string = ASSIGNMENT_CHANNEL): Promise<Wakeups> {
    const wakeups = new Wakeups();
    // Without notifications (a pooler in transaction mode), every wait is bounded instead.
    wakeups.pollMs = listener.pollMs;
    let first = true;
    const { unlisten } = await listener.listen(
      channel,
      (id) => wakeups.wake(id),
      () => {
        if (!first) wakeups.wakeAll();
        first = false;
      },
    );
    wakeups.unlisten = unlisten;
    return wakeups;
  }

  get stopping(): boolean {
    return this.closed;
  }

  watch(daemonId: string): Watch {
    const state: WatchState = { fired: this.closed, resolve: undefined };
    let set = this.watching.get(daemonId);
    if (set === undefined) this.watching.set(daemonId, (set = new Set()));
    const states = set;
    states.add(state);
    return {
      wait: (ms) => {
        if (state.fired || this.closed) {
          state.fired = false;
          return Promise.resolve(true);
        }
        return new Promise((resolve) => {
          const timer = setTimeout(
            () => {
              state.resolve = undefined;
              resolve(false);
            },
            Math.max(0, Math.min(ms, this.pollMs ?? ms)),
          );
          state.resolve = () => {
            clearTimeout(timer);
            state.resolve = undefined;
            state.fired = false;
            resolve(true);
          };
        });
      },
      close: () => {
        states.delete(state);
        if (states.size === 0 && this.watching.get(daemonId) === states) this.watching.delete(daemonId);
      },
    };
  }

  private wake(daemonId: string): void {
    for (const state of this.watching.get(daemonId) ?? []) fire(state);
  }

  /** Ends every wait now (each looks again, or sees that the database went away), without stopping. */
  wakeAll(): void {
    for (const states of this.watching.values()) for (const state of states) fire(state);
  }

  /**
   * The instance drains (it stops soon): every wait ends at once and no new one waits (their
   * long-polls answer, their streams end, and clients come back through the load balancer to
   * another instance); it goes on listening until `close`.
   */
  drain(): void {
    this.closed = true;
    for (const states of this.watching.values()) for (const state of states) fire(state);
  }

  /** Ends every wait at once (their long-polls answer), and stops listening. */
  async close(): Promise<void> {
    this.drain();
    await this.unlisten?.();
  }
}

interface WatchState {
  /** A NOTIFY came while nobody was waiting: the next wait returns at once. */
  fired: boolean;
  resolve: (() => void) | undefined;
}

function fire(state: WatchState): void {
  state.fired = true;
  state.resolve?.();
}
