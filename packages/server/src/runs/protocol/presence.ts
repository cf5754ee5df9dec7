import type { Sql } from 'postgres';
import { DaemonRepository } from '../../daemons/index.js';
import { ExecutionRepository } from '../executions.js';
import type { DatabaseHealth } from '../../db/health.js';
import { unavailableProblem } from '../../http/database-gate.js';
import type { Assignment } from '../dispatch/model.js';
import { takeCancellations } from '../cancel.js';
import type { Wakeups } from './wakeups.js';

/** A long-poll's answer: an assignment to run, or executions to stop. */
export type PollAnswer = { assignment: Assignment } | { cancel: string[] };

/** The daemon protocol's clocks (DECISIONS.md, Daemons): 30 s each unless tuned. */
export interface DispatchTiming {
  /** A daemon is online while seen (heartbeat, long-poll, any signed request) this recently. */
  offlineAfterMs: number;
  /** An assignment offered but not marked running this long ago is offered again. */
  redeliverAfterMs: number;
  /** How long past max_runtime the hub waits for the daemon's own report before timing out. */
  timeoutGraceMs: number;
}

export const DEFAULT_TIMING: DispatchTiming = {
  offlineAfterMs: 30_000,
  redeliverAfterMs: 30_000,
  timeoutGraceMs: 30_000,
};

/** A waiting long-poll refreshes its daemon's presence this often, well inside the 30 s. */
export const PRESENCE_REFRESH_MS = 10_000;

/**
 * Waits up to `waitS` seconds for an assignment (only when the daemon has `capacity` for one) or
 * cancellations: answers at once if there is one, else sleeps until a NOTIFY names this daemon,
 * an offered assignment becomes due again, or the time is up, keeping the daemon present
 * meanwhile. Ends early (nothing) when `closed` aborts (the client
 * went) or the hub stops, and with 503 database_unavailable when the database goes away (the
 * health wakes every wait). Without wake-ups, it answers after one look.
 */
export async function nextAssignment(
  hub: {
    sql: Sql;
    options: { timing?: DispatchTiming | undefined };
    wakeups?: Wakeups | undefined;
    health?: DatabaseHealth | undefined;
  },
  daemonId: string,
  request: { waitS: number; capacity: number },
  closed: AbortSignal,
): Promise<PollAnswer | undefined> {
  const deadline = Date.now() + request.waitS * 1000;
  // Watching before looking: a NOTIFY between the look and the wait still wakes the wait.
  const watch = hub.wakeups?.watch(daemonId);
  const stopping = () => hub.wakeups?.stopping === true;
  const executions = new ExecutionRepository(hub.sql, hub.options.timing ?? DEFAULT_TIMING);
  try {
    for (;;) {
      // Nothing is taken for a client that has gone: it would never hear of it.
      if (closed.aborted) return undefined;
      // Cancellations first: they free the daemon's capacity.
      const cancel = await takeCancellations(hub.sql, daemonId);
      if (cancel.length > 0) return { cancel };
      const assignment = request.capacity > 0 ? await executions.claim(daemonId) : undefined;
      if (assignment !== undefined) return { assignment };
      const left = deadline - Date.now();
      if (left <= 0 || closed.aborted || watch === undefined || stopping()) return undefined;
      const due = request.capacity > 0 ? await executions.untilRedelivery(daemonId) : undefined;
      await watch.wait(Math.min(left, due ?? Infinity, PRESENCE_REFRESH_MS));
      if (closed.aborted || stopping()) return undefined;
      if (hub.health?.down === true) throw unavailableProblem();
      await new DaemonRepository(hub.sql).touch(daemonId);
    }
  } finally {
    watch?.close();
  }
}
