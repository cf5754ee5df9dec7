import type { Db } from '../db/connect.js';
import { atomically } from '../db/transaction.js';

// Endpoints and their delivery log, as people see them (the API and the dashboard). What the
// deliverers do is in outbox.ts.

export interface EndpointRow {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  status: 'enabled' | 'disabled';
  createdAt: Date;
  disabledAt: Date | null;
}

export interface DeliveryRow {
  id: string;
  eventId: string;
  type: string;
  attempt: number;
  status: 'pending' | 'delivered' | 'failed';
  responseStatus: number | null;
  durationMs: number;
  createdAt: Date;
  nextAttemptAt: Date | null;
}

export interface AttemptRow {
  attempt: number;
  startedAt: Date;
  durationMs: number;
  responseStatus: number | null;
  responseExcerpt: string | null;
  error: string | null;
}

export interface DeliveryDetail {
  delivery: DeliveryRow;
  attempts: AttemptRow[];
  payload: { type: string; timestamp: string; data: unknown };
}

const ENDPOINT_COLUMNS = `id, url, events, description, status, created_at as "createdAt", disabled_at as "disabledAt"`;

export class EndpointRepository {
  constructor(private readonly sql: Db) {}

  async create(
    organizationId: string,
    endpoint: { url: string; events: string[]; description: string | null; secret: string },
  ): Promise<EndpointRow> {
    const [row] = await this.sql<EndpointRow[]>`
      insert into webhook_endpoints (organization_id, url, events, description, secret)
      values (${organizationId}, ${endpoint.url}, ${endpoint.events}, ${endpoint.description}, ${endpoint.secret})
      returning ${this.sql.unsafe(ENDPOINT_COLUMNS)}`;
    return row as EndpointRow;
  }

  async list(organizationId: string): Promise<EndpointRow[]> {
    return this.sql<EndpointRow[]>`
      select ${this.sql.unsafe(ENDPOINT_COLUMNS)} from webhook_endpoints
      where organization_id = ${organizationId} order by created_at, id limit 1000`;
  }

  async find(organizationId: string, id: string): Promise<EndpointRow | undefined> {
    const [row] = await this.sql<EndpointRow[]>`
      select ${this.sql.unsafe(ENDPOINT_COLUMNS)} from webhook_endpoints
      where id = ${id} and organization_id = ${organizationId}`;
    return row;
  }

  /** Deletes the endpoint, and with it its deliveries (pending ones included) and their attempts. */
  async delete(organizationId: string, id: string): Promise<EndpointRow | undefined> {
    const [row] = await this.sql<EndpointRow[]>`
      delete from webhook_endpoints where id = ${id} and organization_id = ${organizationId}
      returning ${this.sql.unsafe(ENDPOINT_COLUMNS)}`;
    return row;
  }

  /** Enables it (again): its pending deliveries are due at once, and its failures start over. */
  async enable(organizationId: string, id: string): Promise<{ endpoint: EndpointRow; changed: boolean } | undefined> {
    return atomically(this.sql, async (tx) => {
      const [before] = await tx<{ status: string }[]>`
        select status from webhook_endpoints where id = ${id} and organization_id = ${organizationId} for update`;
      if (before === undefined) return undefined;
      const changed = before.status === 'disabled';
      if (changed) {
        await tx`update webhook_endpoints set status = 'enabled', disabled_at = null, failing_since = null where id = ${id}`;
        await tx`update webhook_deliveries set next_attempt_at = now() where endpoint_id = ${id} and status = 'pending'`;
        await tx`select pg_notify('hub_webhooks', '')`;
      }
      const endpoint = await new EndpointRepository(tx).find(organizationId, id);
      return { endpoint: endpoint as EndpointRow, changed };
    });
  }
}

const DELIVERY_COLUMNS = (sql: Db) => sql`
  d.id, d.event_id as "eventId", ev.type, d.attempts as attempt, d.status,
  a.response_status as "responseStatus", coalesce(a.duration_ms, 0) as "durationMs", d.created_at as "createdAt",
  case when d.status = 'pending' then greatest(d.next_attempt_at, now()) end as "nextAttemptAt"`;

const LAST_ATTEMPT = (sql: Db) => sql`
  left join lateral (select response_status, duration_ms from webhook_attempts
    where delivery_id = d.id order by attempt desc limit 1) a on true`;

export class DeliveryLogRepository {
  constructor(private readonly sql: Db) {}

  /**
   * Up to `limit + 1` deliveries of the endpoint, newest first, older than the delivery `before`
   * (from the newest when undefined). Undefined when `before` is not a delivery of the endpoint.
   */
  async page(endpointId: string, before: string | undefined, limit: number): Promise<DeliveryRow[] | undefined> {
    const sql = this.sql;
    if (before !== undefined) {
      const [known] = await sql<{ endpointId: string }[]>`
        select endpoint_id as "endpointId" from webhook_deliveries where id = ${before}`;
      if (known?.endpointId !== endpointId) return undefined;
    }
    const older =
      before === undefined
        ? sql`true`
        : sql`(d.created_at, d.id) < (select created_at, id from webhook_deliveries where id = ${before})`;
    return sql<DeliveryRow[]>`
      select ${DELIVERY_COLUMNS(sql)}
      from webhook_deliveries d join webhook_events ev on ev.id = d.event_id ${LAST_ATTEMPT(sql)}
      where d.endpoint_id = ${endpointId} and ${older}
      order by d.created_at desc, d.id desc limit ${limit + 1}`;
  }

  async detail(endpointId: string, deliveryId: string): Promise<DeliveryDetail | undefined> {
    const sql = this.sql;
    const [row] = await sql<(DeliveryRow & { eventAt: string; data: unknown })[]>`
      select ${DELIVERY_COLUMNS(sql)}, hub_iso(ev.created_at) as "eventAt", ev.data
      from webhook_deliveries d join webhook_events ev on ev.id = d.event_id ${LAST_ATTEMPT(sql)}
      where d.id = ${deliveryId} and d.endpoint_id = ${endpointId}`;
    if (row === undefined) return undefined;
    const attempts = await sql<AttemptRow[]>`
      select attempt, started_at as "startedAt", duration_ms as "durationMs", response_status as "responseStatus",
        response_excerpt as "responseExcerpt", error
      from webhook_attempts where delivery_id = ${deliveryId} order by attempt`;
    const { eventAt, data, ...delivery } = row;
    return { delivery, attempts, payload: { type: delivery.type, timestamp: eventAt, data } };
  }

  /**
   * A new delivery of the delivery's event to its endpoint, due now, as it is when made (a
   * deliverer may take it at once); undefined when there is no such delivery.
   */
  async resend(endpointId: string, deliveryId: string): Promise<DeliveryRow | undefined> {
    const sql = this.sql;
    const [made] = await sql<DeliveryRow[]>`
      with made as (
        insert into webhook_deliveries (endpoint_id, event_id)
        select endpoint_id, event_id from webhook_deliveries where id = ${deliveryId} and endpoint_id = ${endpointId}
        returning id, event_id, created_at, next_attempt_at)
      select m.id, m.event_id as "eventId", ev.type, 0 as attempt, 'pending' as status, null::integer as "responseStatus",
        0 as "durationMs", m.created_at as "createdAt", m.next_attempt_at as "nextAttemptAt"
      from made m join webhook_events ev on ev.id = m.event_id`;
    if (made !== undefined) await sql`select pg_notify(${'hub_webhooks'}, '')`;
    return made;
  }
}
