import type { Sql } from 'postgres';
import { ASSIGNMENT_CHANNEL } from '../protocol/channels.js';
import type { Logger } from '../../http/logger.js';

/**
 * Wakes the long-polls of a daemon that has a new assignment, on every instance (Wakeups), with a
 * NOTIFY sent once the dispatch has committed, not in its transaction. PostgreSQL serializes the
 * commits of notifying transactions (one lock on the database, held through the commit's WAL
 * flush), which held dispatches to one commit at a time; here the notifying transaction writes
 * nothing else and, on `sql` with synchronous_commit off, does not wait for the disk. The daemons
 * waiting to be woken are gathered while one NOTIFY is on its way and sent together.
 *
 * A NOTIFY lost in between (the hub ends right after a commit, the statement fails) delays that
 * assignment to the daemon's next look, at the latest the end of its long-poll's wait.
 */
export class AssignmentNotices {
  private readonly waiting = new Set<string>();
  private sending = false;

  constructor(
    private readonly sql: Sql,
    private readonly log: Logger,
  ) {}

  /** Wakes `daemonId`'s long-polls soon; call it after the assignment's transaction committed. */
  wake(daemonId: string): void {
    this.waiting.add(daemonId);
    if (!this.sending) void this.send();
  }

  private async send(): Promise<void> {
    this.sending = true;
    try {
      while (this.waiting.size > 0) {
        const daemonIds = [...this.waiting];
        this.waiting.clear();
        try {
          await this.sql`select pg_notify(${ASSIGNMENT_CHANNEL}, id) from unnest(${daemonIds}::text[]) as id`;
        } catch (error) {
          this.log.warn('assignment wake-up not sent; the daemons see it at their next look', {
            daemons: daemonIds.length,
            error: String(error),
          });
        }
      }
    } finally {
      this.sending = false;
    }
  }
}
