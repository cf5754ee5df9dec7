import type { Sql } from 'postgres';
import { databaseUnavailable, type DatabaseHealth } from '../db/health.js';
import type { Listening } from '../db/listener.js';
import { startWakeLoop } from '../db/wake-loop.js';
import type { Logger } from '../http/logger.js';
import { GitHubClient } from './client.js';
import type { GitHubConfig } from './config.js';
import { processDelivery } from './deliveries/process.js';
import { DeliveryRepository, GITHUB_CHANNEL, type StoredDelivery } from './deliveries/sql.js';
import { reportOnce } from './report/reporter.js';
import { MessageRepository } from './report/sql.js';

/** Deliveries leased per look, and how long a lease holds (an instance that dies frees them then). */
const BATCH = 20;
const LEASE_MS = 60_000;
/** Done deliveries are forgotten after this many days, looked for once an hour, 1,000 at a time. */
const KEEP_DONE_DAYS = 7;
const PRUNE_EVERY_MS = 3_600_000;
/**
 * The longest sleep: a look now and then, for a delivery whose receiver died (none sends a NOTIFY
 * for it) and for a NOTIFY lost while the connection was away.
 */
const LONGEST_SLEEP_MS = 10_000;

export interface GitHubWorkerOptions {
  sql: Sql;
  log: Logger;
  config: GitHubConfig;
  timing: { offlineAfterMs: number };
  publicUrl: string;
  wake: (daemonId: string) => void;
  health?: DatabaseHealth;
  /** Where the loop LISTENs (db/listener.ts); `sql` unless given. */
  listener?: Listening;
}

export interface GitHubWorker {
  /** A delivery this instance has just stored and answered: acted on at once, here (it holds its first lease). */
  received(delivery: StoredDelivery): void;
  close(): Promise<void>;
}

/**
 * Every instance's GitHub worker, in two loops that never wait for each other. Deliveries: the
 * instance that received one acts on it at once (`received`; the delivery was stored with a short
 * lease of its own), and every instance takes up what is due — a delivery whose receiver died,
 * one to try again. Reports (report/reporter.ts): what the hub owes GitHub, paced by GitHub's
 * limits, woken by NOTIFY `hub_github` (a GitHub run ended, a message queued) or when the next
 * retry is due.
 */
export async function startGitHubWorker(options: GitHubWorkerOptions): Promise<GitHubWorker> {
  const { sql, log } = options;
  const client = new GitHubClient(options.config);
  const deliveries = new DeliveryRepository(sql);
  const messages = new MessageRepository(sql);
  let closed = false;
  const processing = {
    sql,
    config: options.config,
    timing: options.timing,
    pullHead: (installationId: number, repository: string, number: number) =>
      client.pullHead(installationId, repository, number),
    wake: options.wake,
    kept: { models: new Map(), triggerIds: new Map() },
  };
  const inFlight = new Set<Promise<void>>();

  const act = async (delivery: StoredDelivery): Promise<void> => {
    try {
      const outcome = await processDelivery(processing, delivery);
      log.info('github delivery', { delivery: delivery.deliveryId, event: delivery.event, outcome });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (databaseUnavailable(error)) options.health?.report(error);
      log.error('github delivery failed; it will be tried again', { delivery: delivery.deliveryId, error: message });
      await deliveries
        .failed(delivery.deliveryId, message, Math.min(600_000, 5_000 * 2 ** delivery.attempts))
        .catch(() => {});
    }
  };

  let prunedAt = 0;
  const deliveryTurn = async (): Promise<number> => {
    if (Date.now() - prunedAt > PRUNE_EVERY_MS) {
      prunedAt = Date.now();
      while (!closed && (await deliveries.prune(KEEP_DONE_DAYS, 1_000)) === 1_000);
    }
    for (;;) {
      if (closed) break;
      const leased = await deliveries.lease(BATCH, LEASE_MS);
      await Promise.all(leased.map(act));
      if (leased.length < BATCH) break;
    }
    return untilDue(await deliveries.nextDue());
  };

  const reportTurn = async (): Promise<number> => {
    while (!closed && (await reportOnce({ sql, client, publicUrl: options.publicUrl, log, closed: () => closed })) > 0);
    return untilDue(await messages.nextDue());
  };

  const loops = await Promise.all([
    // No NOTIFY wakes it: the receiver acts on its own deliveries; this loop takes up the rest when due.
    startWakeLoop({ sql, name: 'github deliveries', log, health: options.health, turn: deliveryTurn }),
    startWakeLoop({
      sql,
      name: 'github reports',
      channel: GITHUB_CHANNEL,
      listener: options.listener,
      log,
      health: options.health,
      turn: reportTurn,
    }),
  ]);
  return {
    received(delivery) {
      if (closed) return;
      const acting = act(delivery).finally(() => inFlight.delete(acting));
      inFlight.add(acting);
    },
    async close() {
      closed = true;
      await Promise.all([...loops.map((loop) => loop.close()), ...inFlight]);
    },
  };
}

/** How long to sleep until `at` (at least 25 ms, at most LONGEST_SLEEP_MS). */
function untilDue(at: Date | undefined): number {
  return at === undefined ? LONGEST_SLEEP_MS : Math.min(LONGEST_SLEEP_MS, Math.max(25, at.getTime() - Date.now()));
}
