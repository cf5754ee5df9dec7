import type { Sql } from 'postgres';
import { databaseUnavailable, type DatabaseHealth } from '../db/health.js';
import { startWakeLoop } from '../db/wake-loop.js';
import type { Logger } from '../http/logger.js';
import { GitHubClient } from './client.js';
import type { GitHubConfig } from './config.js';
import { processDelivery } from './deliveries/process.js';
import { DeliveryRepository, GITHUB_CHANNEL } from './deliveries/sql.js';
import { reportOnce } from './report/reporter.js';
import { MessageRepository } from './report/sql.js';

/** Deliveries leased per look, and how long a lease holds (an instance that dies frees them then). */
const BATCH = 20;
const LEASE_MS = 60_000;
/** Done deliveries are forgotten after this many days, looked for once an hour, 1,000 at a time. */
const KEEP_DONE_DAYS = 7;
const PRUNE_EVERY_MS = 3_600_000;
/** The longest sleep: a look now and then even without a NOTIFY (one lost while the connection was away). */
const LONGEST_SLEEP_MS = 30_000;

export interface GitHubWorkerOptions {
  sql: Sql;
  log: Logger;
  config: GitHubConfig;
  timing: { offlineAfterMs: number };
  publicUrl: string;
  wake: (daemonId: string) => void;
  health?: DatabaseHealth;
}

/**
 * Every instance's GitHub worker: it acts on stored deliveries (deliveries/process.ts) and reports
 * to GitHub (report/reporter.ts), waking on NOTIFY `hub_github` (a delivery stored, a GitHub run
 * ended, a message queued) or when the next retry is due; never spinning (at least 25 ms between
 * looks, a second after a failure or while the database is down).
 */
export async function startGitHubWorker(options: GitHubWorkerOptions): Promise<{ close(): Promise<void> }> {
  const { sql, log } = options;
  const client = new GitHubClient(options.config);
  const deliveries = new DeliveryRepository(sql);
  let closed = false;
  const processing = {
    sql,
    config: options.config,
    timing: options.timing,
    pullHead: (installationId: number, repository: string, number: number) =>
      client.pullHead(installationId, repository, number),
    wake: options.wake,
  };

  const processDue = async (): Promise<number> => {
    const leased = await deliveries.lease(BATCH, LEASE_MS);
    await Promise.all(
      leased.map(async (delivery) => {
        try {
          const outcome = await processDelivery(processing, delivery);
          log.info('github delivery', { delivery: delivery.deliveryId, event: delivery.event, outcome });
        } catch (error) {
          if (databaseUnavailable(error)) throw error;
          const message = error instanceof Error ? error.message : String(error);
          log.error('github delivery failed; it will be tried again', {
            delivery: delivery.deliveryId,
            error: message,
          });
          await deliveries.failed(delivery.deliveryId, message, Math.min(600_000, 5_000 * 2 ** delivery.attempts));
        }
      }),
    );
    return leased.length;
  };

  let prunedAt = 0;
  const turn = async (): Promise<number> => {
    if (Date.now() - prunedAt > PRUNE_EVERY_MS) {
      prunedAt = Date.now();
      while (!closed && (await deliveries.prune(KEEP_DONE_DAYS, 1_000)) === 1_000);
    }
    while (!closed && (await processDue()) === BATCH);
    while (!closed && (await reportOnce({ sql, client, publicUrl: options.publicUrl, log })) > 0);
    return nextDue();
  };

  const nextDue = async (): Promise<number> => {
    const [delivery, report] = await Promise.all([deliveries.nextDue(), new MessageRepository(sql).nextDue()]);
    const times = [delivery, report].filter((at): at is Date => at !== undefined).map((at) => at.getTime());
    return Math.min(
      LONGEST_SLEEP_MS,
      times.length === 0 ? LONGEST_SLEEP_MS : Math.max(25, Math.min(...times) - Date.now()),
    );
  };

  const loop = await startWakeLoop({
    sql,
    name: 'github worker',
    channel: GITHUB_CHANNEL,
    log,
    health: options.health,
    turn,
  });
  return {
    async close() {
      closed = true;
      await loop.close();
    },
  };
}
