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
   * Up to `room` due deliveries of enabled endpoints, each leased for `leaseMs` (an instance that
   * dies frees them then) and counted as an attempt; no endpoint gets more than `perEndpoint`
   * minus what `busy` says this instance already sends to it. Oldest due first.
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
        select d.id, d.endpoint_id, d.next_attempt_at,
          row_number() over (partition by d.endpoint_id order by d.next_attempt_at, d.id) as place
        from (select id, endpoint_id, next_attempt_at from webhook_deliveries
              where status = 'pending' and next_attempt_at <= now() order by next_attempt_at limit 2000) d
          join webhook_endpoints e on e.id = d.endpoint_id and e.status = 'enabled'),
      chosen as (
        select due.id from due left join busy b on b.endpoint_id = due.endpoint_id
        where due.place <= ${perEndpoint} - coalesce(b.sending, 0)
        order by due.next_attempt_at limit ${room}),
      locked as (
        select w.id from webhook_deliveries w where w.id in (select id from chosen)
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
   * Records an attempt: delivered, or due again after `retryInMs`, or failed for good when that is
   * undefined. The endpoint's run of failures starts or ends here; one that has failed, and only
   * failed, for `disableAfterMs` is disabled. True when this attempt disabled it.
   */
  async record(
    delivery: LeasedDelivery,
    outcome: AttemptOutcome,
    retryInMs: number | undefined,
    disableAfterMs: number,
  ): Promise<{ disabled: boolean }> {
    return this.sql.begin(async (tx) => {
      await tx`
        insert into webhook_attempts (delivery_id, attempt, started_at, duration_ms, response_status, response_excerpt, error)
        values (${delivery.id}, ${delivery.attempt}, ${outcome.startedAt}, ${outcome.durationMs},
          ${outcome.responseStatus ?? null}, ${outcome.responseExcerpt ?? null}, ${outcome.error ?? null})
        on conflict do nothing`;
      if (outcome.ok) {
        await tx`
          update webhook_deliveries set status = 'delivered', finished_at = now(), next_attempt_at = now()
          where id = ${delivery.id} and status = 'pending'`;
        await tx`update webhook_endpoints set failing_since = null where id = ${delivery.endpointId} and failing_since is not null`;
        return { disabled: false };
      }
      if (retryInMs === undefined)
        await tx`
          update webhook_deliveries set status = 'failed', finished_at = now(), next_attempt_at = now()
          where id = ${delivery.id} and status = 'pending'`;
      else
        await tx`
          update webhook_deliveries set next_attempt_at = now() + ${retryInMs} * interval '1 millisecond'
          where id = ${delivery.id} and status = 'pending'`;
      const [endpoint] = await tx<{ disabled: boolean }[]>`
        update webhook_endpoints set failing_since = coalesce(failing_since, ${outcome.startedAt}),
          status = case when failing_since < now() - ${disableAfterMs} * interval '1 millisecond' then 'disabled' else status end,
          disabled_at = case when failing_since < now() - ${disableAfterMs} * interval '1 millisecond' and status = 'enabled'
            then now() else disabled_at end
        where id = ${delivery.endpointId}
        returning status = 'disabled' and disabled_at = now() as disabled`;
      return { disabled: endpoint?.disabled === true };
    });
  }

  /** When the next pending delivery of an enabled endpoint is due, if any is. */
  async nextDue(): Promise<Date | undefined> {
    const [row] = await this.sql<{ at: Date | null }[]>`
      select min(d.next_attempt_at) as at from webhook_deliveries d
      where d.status = 'pending' and exists (select 1 from webhook_endpoints e where e.id = d.endpoint_id and e.status = 'enabled')`;
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
