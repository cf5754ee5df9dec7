import type { Sql } from 'postgres';

// What the deliverers of every instance do with the outbox (migrations/016_webhooks.sql): lease
// what is due, record each attempt, retry or give up, disable an endpoint that only fails, and
// notice daemons gone offline (which no change tells of).

export const WEBHOOK_CHANNEL = 'hub_webhooks';

/** A delivery leased for one attempt, with what the attempt sends. */
export interface LeasedDelivery {
  id: string;
  endpointId: string;
  /** This attempt's number: 1 for the first. */
  attempt: number;
  eventId: string;
  /** The body every attempt of the event sends. */
  body: string;
  url: string;
  secret: string;
}

/** One attempt's outcome, as the delivery log keeps it. */
export interface AttemptOutcome {
  ok: boolean;
  startedAt: Date;
  durationMs: number;
  responseStatus?: number;
  responseExcerpt?: string;
  error?: string;
}

export class OutboxRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * Up to `room` due deliveries, oldest due first, each leased for `leaseMs` (an instance that dies
   * frees them then) and counted as an attempt. They are picked per enabled endpoint, at most
   * `perEndpoint` minus what `busy` says this instance already sends to it: an endpoint's backlog
   * (one that hangs, or one disabled) never stands before another endpoint's deliveries.
   */
  async lease(
    room: number,
    perEndpoint: number,
    busy: Map<string, number>,
    leaseMs: number,
  ): Promise<LeasedDelivery[]> {
    if (room <= 0) return [];
    const sql = this.sql;
    return sql<LeasedDelivery[]>`
      with busy as (select * from unnest(${[...busy.keys()]}::uuid[], ${[...busy.values()]}::int[]) as b(endpoint_id, sending)),
      due as (
        select d.id, d.next_attempt_at
        from webhook_endpoints e
          left join busy b on b.endpoint_id = e.id
          cross join lateral (
            select w.id, w.next_attempt_at from webhook_deliveries w
            where w.endpoint_id = e.id and w.status = 'pending' and w.next_attempt_at <= now()
            order by w.next_attempt_at, w.id
            limit greatest(${perEndpoint} - coalesce(b.sending, 0), 0)) d
        where e.status = 'enabled'
        order by d.next_attempt_at limit ${room}),
      locked as (
        select w.id from webhook_deliveries w where w.id in (select id from due)
          and w.status = 'pending' and w.next_attempt_at <= now()
        for update skip locked)
      update webhook_deliveries d
      set next_attempt_at = now() + ${leaseMs} * interval '1 millisecond', attempts = d.attempts + 1
      from locked, webhook_events ev, webhook_endpoints e
      where d.id = locked.id and ev.id = d.event_id and e.id = d.endpoint_id
      returning d.id, d.endpoint_id as "endpointId", d.attempts as attempt, ev.id as "eventId",
        json_build_object('type', ev.type, 'timestamp', hub_iso(ev.created_at), 'data', ev.data)::text as body,
        e.url, e.secret`;
  }

  /**
   * Records an attempt, in one statement: delivered, or due again after `retryInMs`, or failed for
   * good when that is undefined. The endpoint's run of failures starts or ends here (its row is
   * written only then, not on every delivery); one that has failed, and only failed, for
   * `disableAfterMs` is disabled. True when this attempt disabled it.
   */
  async record(
    delivery: LeasedDelivery,
    outcome: AttemptOutcome,
    retryInMs: number | undefined,
    disableAfterMs: number,
  ): Promise<{ disabled: boolean }> {
    const sql = this.sql;
    const status = outcome.ok ? 'delivered' : retryInMs === undefined ? 'failed' : 'pending';
    const [row] = await sql<{ disabled: boolean }[]>`
      with attempt as (
        -- Not for a delivery deleted meanwhile (its endpoint deleted): nothing is left to record.
        insert into webhook_attempts (delivery_id, attempt, started_at, duration_ms, response_status, response_excerpt, error)
        select ${delivery.id}, ${delivery.attempt}, ${outcome.startedAt}, ${outcome.durationMs},
          ${outcome.responseStatus ?? null}::integer, ${outcome.responseExcerpt ?? null}::text, ${outcome.error ?? null}::text
        where exists (select 1 from webhook_deliveries where id = ${delivery.id})
        on conflict do nothing),
      delivery as (
        update webhook_deliveries
        set status = ${status}, finished_at = case when ${status} = 'pending' then null else now() end,
          next_attempt_at = now() + ${retryInMs ?? 0} * interval '1 millisecond'
        where id = ${delivery.id} and status = 'pending'),
      endpoint as (
        update webhook_endpoints
        set failing_since = case when ${outcome.ok} then null else coalesce(failing_since, ${outcome.startedAt}) end,
          status = case when not ${outcome.ok} and failing_since < now() - ${disableAfterMs} * interval '1 millisecond'
            then 'disabled' else status end,
          disabled_at = case when not ${outcome.ok} and failing_since < now() - ${disableAfterMs} * interval '1 millisecond'
            then now() else disabled_at end
        where id = ${delivery.endpointId} and case when ${outcome.ok} then failing_since is not null
          else failing_since is null or (status = 'enabled' and failing_since < now() - ${disableAfterMs} * interval '1 millisecond') end
        returning status = 'disabled' as disabled)
      select coalesce((select disabled from endpoint), false) as disabled`;
    return { disabled: row?.disabled === true };
  }

  /** When the next pending delivery of an enabled endpoint is due, if any is. */
  async nextDue(): Promise<Date | undefined> {
    const [row] = await this.sql<{ at: Date | null }[]>`
      select min(d.next_attempt_at) as at
      from webhook_endpoints e cross join lateral (
        select w.next_attempt_at from webhook_deliveries w
        where w.endpoint_id = e.id and w.status = 'pending' order by w.next_attempt_at limit 1) d
      where e.status = 'enabled'`;
    return row?.at ?? undefined;
  }

  /** Emits daemon.offline for each daemon that went offline since it was last told of (SQL: webhook_tell_offline). */
  async tellOffline(offlineAfterMs: number): Promise<number> {
    const [row] = await this.sql<{ told: number }[]>`select webhook_tell_offline(${offlineAfterMs}) as told`;
    return row?.told ?? 0;
  }

  /**
   * Deletes up to `batch` events older than `days` with no delivery still pending (their deliveries
   * and attempts go with them). The count deleted: a full batch means more may be left.
   */
  async prune(days: number, batch: number): Promise<number> {
    const gone = await this.sql`
      delete from webhook_events where id in (
        select ev.id from webhook_events ev
        where ev.created_at < now() - ${days} * interval '1 day'
          and not exists (select 1 from webhook_deliveries d where d.event_id = ev.id and d.status = 'pending')
        order by ev.created_at limit ${batch}
        for update skip locked)`;
    return gone.count;
  }
}
