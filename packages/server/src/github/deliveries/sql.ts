import type { Db } from '../../db/connect.js';

/** Sent when a GitHub run ends or a message waits (migration 014's triggers): the reporters look. */
export const GITHUB_CHANNEL = 'hub_github';

export interface StoredDelivery {
  deliveryId: string;
  event: string;
  payload: unknown;
  attempts: number;
}

/** How often a delivery whose processing failed (the database, GitHub) is tried before it is given up. */
export const DELIVERY_ATTEMPTS = 8;

/** Webhook deliveries: stored before the 202, acted on by whichever instance claims them. */
export class DeliveryRepository {
  constructor(private readonly sql: Db) {}

  /**
   * Stores a delivery, leased for `ownMs` to the instance that received it (which acts on it at
   * once, without waiting for a look); another instance takes it up only if that lease runs out.
   * Undefined when this X-GitHub-Delivery was stored before (a redelivery; the other instance).
   */
  async store(deliveryId: string, event: string, payload: unknown, ownMs: number): Promise<StoredDelivery | undefined> {
    const [row] = await this.sql<StoredDelivery[]>`
      insert into github_deliveries (delivery_id, event, payload, next_attempt_at)
      values (${deliveryId}, ${event}, ${this.sql.json(payload as never)}, now() + ${ownMs} * interval '1 millisecond')
      on conflict (delivery_id) do nothing
      returning delivery_id as "deliveryId", event, payload, attempts`;
    return row;
  }

  /**
   * Up to `limit` pending deliveries due now, oldest first, leased to this instance for `leaseMs`:
   * another instance takes one up only once its lease has run out (this one died with it).
   */
  async lease(limit: number, leaseMs: number): Promise<StoredDelivery[]> {
    return this.sql<StoredDelivery[]>`
      update github_deliveries d set next_attempt_at = now() + ${leaseMs} * interval '1 millisecond'
      from (
        select delivery_id from github_deliveries
        where state = 'pending' and next_attempt_at <= now()
        order by received_at limit ${limit}
        for update skip locked
      ) due
      where d.delivery_id = due.delivery_id
      returning d.delivery_id as "deliveryId", d.event, d.payload, d.attempts`;
  }

  /** Done, with what came of it; false when another instance finished it first. */
  async done(deliveryId: string, outcome: string): Promise<boolean> {
    const rows = await this.sql`
      update github_deliveries set state = 'done', outcome = ${outcome}, done_at = now(), attempts = attempts + 1
      where delivery_id = ${deliveryId} and state = 'pending'
      returning 1`;
    return rows.length > 0;
  }

  /** A failed attempt: tried again after a backoff, or given up after DELIVERY_ATTEMPTS. */
  async failed(deliveryId: string, error: string, retryAfterMs: number): Promise<void> {
    await this.sql`
      update github_deliveries set attempts = attempts + 1, last_error = ${error.slice(0, 2000)},
        next_attempt_at = now() + ${retryAfterMs} * interval '1 millisecond',
        state = case when attempts + 1 >= ${DELIVERY_ATTEMPTS} then 'done' else 'pending' end,
        outcome = case when attempts + 1 >= ${DELIVERY_ATTEMPTS} then 'failed' else outcome end,
        done_at = case when attempts + 1 >= ${DELIVERY_ATTEMPTS} then now() end
      where delivery_id = ${deliveryId}`;
  }

  /**
   * Forgets, `limit` at a time, deliveries done more than `days` ago and the messages sent for
   * them: GitHub redelivers only recent deliveries, and a run keeps its delivery key (so a very
   * late redelivery still starts nothing new). Returns how many deliveries went.
   */
  async prune(days: number, limit: number): Promise<number> {
    const [row] = await this.sql<{ deliveries: number }[]>`
      with old as (
        select delivery_id from github_deliveries
        where state = 'done' and received_at < now() - ${days} * interval '1 day'
        order by received_at limit ${limit}
        for update skip locked
      ), messages as (
        delete from github_messages m using old where m.delivery_id = old.delivery_id and m.sent_at is not null
      ), gone as (
        delete from github_deliveries d using old where d.delivery_id = old.delivery_id returning 1
      )
      select count(*)::int as deliveries from gone`;
    return row?.deliveries ?? 0;
  }

  /** When the next pending delivery is due, if any. */
  async nextDue(): Promise<Date | undefined> {
    const [row] = await this.sql<{ at: Date | null }[]>`
      select min(next_attempt_at) as at from github_deliveries where state = 'pending'`;
    return row?.at ?? undefined;
  }
}
