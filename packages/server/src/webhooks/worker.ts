import type { Sql } from 'postgres';
import type { DatabaseHealth } from '../db/health.js';
import type { Listening } from '../db/listener.js';
import { startWakeLoop } from '../db/wake-loop.js';
import type { Logger } from '../http/logger.js';
import { countDelivery } from '../metrics/index.js';
import { OutboxRepository, WEBHOOK_CHANNEL, type LeasedDelivery } from './outbox.js';
import { sendAttempt } from './send.js';
import { withJitter, type WebhookSettings } from './settings.js';

/** Attempts this instance has in flight at most, and to one endpoint at most: a slow endpoint holds its own slots only. */
const IN_FLIGHT = 64;
const PER_ENDPOINT = 4;
/** How long a lease holds: past the attempt's timeout, so that only a dead instance's deliveries are taken over. */
const LEASE_MARGIN_MS = 50_000;
/** Daemons gone offline are looked for at most this often. */
const OFFLINE_EVERY_MS = 2_000;
/** The longest sleep: a look now and then, for a lease that ran out and a NOTIFY lost while the connection was away. */
const LONGEST_SLEEP_MS = 5_000;

export interface WebhookWorkerOptions {
  sql: Sql;
  log: Logger;
  settings: WebhookSettings;
  offlineAfterMs: number;
  health?: DatabaseHealth;
  /** Where the loop LISTENs (db/listener.ts); `sql` unless given. */
  listener?: Listening;
}

/**
 * Every instance's deliverer (DECISIONS.md, Outbound webhooks): woken by NOTIFY `hub_webhooks`
 * (an event queued, a resend, an endpoint enabled) or when the next retry is due, it leases what
 * is due and sends each attempt without waiting for the others, at most IN_FLIGHT at once and
 * PER_ENDPOINT to one endpoint; an attempt that ends wakes it for more. It also tells of daemons
 * gone offline, which no change in the database announces.
 */
export async function startWebhookWorker(options: WebhookWorkerOptions): Promise<{ close(): Promise<void> }> {
  const { log, settings } = options;
  const outbox = new OutboxRepository(options.sql);
  const busy = new Map<string, number>();
  const inFlight = new Set<Promise<void>>();
  let closed = false;
  let offlineAt = 0;
  let wake = () => {};

  const attempt = async (delivery: LeasedDelivery): Promise<void> => {
    const outcome = await sendAttempt(delivery, settings);
    const retries = settings.retryDelaysMs;
    const retryInMs =
      outcome.ok || delivery.attempt > retries.length ? undefined : withJitter(retries[delivery.attempt - 1] as number);
    const result = outcome.ok ? 'delivered' : retryInMs === undefined ? 'failed' : 'retrying';
    countDelivery(result);
    try {
      const { disabled } = await outbox.record(delivery, outcome, retryInMs, settings.disableAfterMs);
      if (disabled)
        log.warn('webhook endpoint disabled: 5 days of failed deliveries', { endpoint: delivery.endpointId });
    } catch (error) {
      // Not recorded: the lease runs out, and the attempt is made again (at least once).
      log.error('webhook attempt not recorded; it will be made again', {
        delivery: delivery.id,
        error: error instanceof Error ? error.message : String(error),
      });
    }
    if (!outcome.ok)
      log.info('webhook attempt failed', {
        delivery: delivery.id,
        attempt: delivery.attempt,
        result,
        error: outcome.error,
      });
  };

  const start = (delivery: LeasedDelivery) => {
    busy.set(delivery.endpointId, (busy.get(delivery.endpointId) ?? 0) + 1);
    const running = attempt(delivery).finally(() => {
      const left = (busy.get(delivery.endpointId) ?? 1) - 1;
      if (left === 0) busy.delete(delivery.endpointId);
      else busy.set(delivery.endpointId, left);
      inFlight.delete(running);
      wake();
    });
    inFlight.add(running);
  };

  const turn = async (): Promise<number> => {
    if (Date.now() - offlineAt > OFFLINE_EVERY_MS) {
      offlineAt = Date.now();
      await outbox.tellOffline(options.offlineAfterMs);
    }
    const leased = await outbox.lease(
      IN_FLIGHT - inFlight.size,
      PER_ENDPOINT,
      busy,
      settings.timeoutMs + LEASE_MARGIN_MS,
    );
    if (closed) return LONGEST_SLEEP_MS;
    for (const delivery of leased) start(delivery);
    // Attempts in flight wake the loop when they end: what is due now and was not leased (no room,
    // or its endpoint's slots taken) waits for that; what is due later, for its time.
    const due = await outbox.nextDue();
    const untilDue = due === undefined ? LONGEST_SLEEP_MS : due.getTime() - Date.now();
    const sleepMs = untilDue > 0 ? untilDue : inFlight.size > 0 ? LONGEST_SLEEP_MS : 25;
    return Math.min(sleepMs, LONGEST_SLEEP_MS, OFFLINE_EVERY_MS);
  };

  const loop = await startWakeLoop({
    sql: options.sql,
    name: 'webhook deliverer',
    channel: WEBHOOK_CHANNEL,
    listener: options.listener,
    log,
    ...(options.health === undefined ? {} : { health: options.health }),
    turn,
  });
  wake = () => {
    if (!closed) loop.wake();
  };
  return {
    async close() {
      closed = true;
      await loop.close();
      // Attempts in flight end (each within its timeout) and are recorded: none is left half-done.
      await Promise.all(inFlight);
    },
  };
}
