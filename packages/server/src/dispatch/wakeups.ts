import type { Sql } from 'postgres';

/** The channel on which a new assignment names its daemon. */
export const ASSIGNMENT_CHANNEL = 'hub_assignments';

/**
 * Wakes the long-polls waiting on this instance when an assignment is created for their daemon
 * on any instance: PostgreSQL's NOTIFY (sent in the transaction that creates the execution, so
 * delivered on commit) reaches every instance's LISTEN connection.
 */
export class Wakeups {
  private readonly waiting = new Map<string, Set<() => void>>();
  private closed = false;
  private unlisten: (() => Promise<void>) | undefined;

  static async listen(sql: Sql): Promise<Wakeups> {
    const wakeups = new Wakeups();
    const { unlisten } = await sql.listen(ASSIGNMENT_CHANNEL, (daemonId) => wakeups.wake(daemonId));
    wakeups.unlisten = unlisten;
    return wakeups;
  }

  /**
   * Resolves when an assignment for `daemonId` may be waiting, after `ms`, or when the hub stops,
   * whichever comes first; `true` unless it timed out.
   */
  wait(daemonId: string, ms: number): Promise<boolean> {
    if (this.closed) return Promise.resolve(true);
    return new Promise((resolve) => {
      let set = this.waiting.get(daemonId);
      if (set === undefined) this.waiting.set(daemonId, (set = new Set()));
      const waiters = set;
      const done = (woken: boolean) => {
        clearTimeout(timer);
        waiters.delete(wake);
        if (waiters.size === 0 && this.waiting.get(daemonId) === waiters) this.waiting.delete(daemonId);
        resolve(woken);
      };
      const wake = () => done(true);
      const timer = setTimeout(() => done(false), Math.max(0, ms));
      waiters.add(wake);
    });
  }

  get stopping(): boolean {
    return this.closed;
  }

  private wake(daemonId: string): void {
    for (const wake of [...(this.waiting.get(daemonId) ?? [])]) wake();
  }

  /** Ends every wait at once (their long-polls answer), and stops listening. */
  async close(): Promise<void> {
    this.closed = true;
    for (const set of [...this.waiting.values()]) for (const wake of [...set]) wake();
    await this.unlisten?.();
  }
}
