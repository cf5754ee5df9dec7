// The storage the Webhooks pages need: a part of the dashboard's port (DashboardStore extends it).
// The shapes are those of the hub's delivery log (DECISIONS.md, Outbound webhooks).

export interface WebhookEndpointRow {
  id: string;
  url: string;
  /** Event types, or `['*']` for all of them. */
  events: string[];
  description: string | null;
  status: 'enabled' | 'disabled';
  createdAt: Date;
  disabledAt: Date | null;
}

export interface WebhookDeliveryRow {
  id: string;
  /** The event's id: the `webhook-id` header, the same on every attempt and every resend. */
  eventId: string;
  type: string;
  /** Attempts made so far. */
  attempt: number;
  status: 'pending' | 'delivered' | 'failed';
  /** The last attempt's response status; null when it had none (no attempt yet, or an error). */
  responseStatus: number | null;
  durationMs: number;
  createdAt: Date;
  /** When a pending delivery is tried next. */
  nextAttemptAt: Date | null;
}

export interface WebhookAttemptRow {
  attempt: number;
  startedAt: Date;
  durationMs: number;
  responseStatus: number | null;
  /** The start of the response's body, as the hub kept it. */
  responseExcerpt: string | null;
  /** Why there was no response (a refused address, a timeout, a reset). */
  error: string | null;
}

export interface WebhookDeliveryDetail {
  delivery: WebhookDeliveryRow;
  attempts: WebhookAttemptRow[];
  /** The body sent, Standard Webhooks' `{ type, timestamp, data }`. */
  payload: { type: string; timestamp: string; data: unknown };
}

export interface WebhookDeliveryList {
  deliveries: WebhookDeliveryRow[];
  /** The cursor of the next (older) page; undefined on the last page. */
  older: string | undefined;
}

export interface NewWebhookEndpoint {
  url: string;
  events: string[];
  description: string | undefined;
}

export type WebhookEndpointCreation =
  | { ok: true; endpoint: WebhookEndpointRow; secret: string }
  /** The hub does not send there: `message` says why, for the URL field. */
  | { ok: false; reason: 'destination'; message: string }
  | { ok: false; reason: 'forbidden' };

export type WebhookEndpointChange = 'done' | 'not_found' | 'forbidden';

export type WebhookResending =
  { ok: true; delivery: WebhookDeliveryRow } | { ok: false; reason: 'not_found' | 'disabled' | 'forbidden' };

export interface WebhooksPort {
  webhookEndpoints(organizationId: string): Promise<WebhookEndpointRow[]>;
  webhookEndpoint(organizationId: string, endpointId: string): Promise<WebhookEndpointRow | undefined>;
  /** An owner registers an endpoint; the secret is in the answer alone. Audited. */
  createWebhookEndpoint(
    accountId: string,
    organizationId: string,
    endpoint: NewWebhookEndpoint,
  ): Promise<WebhookEndpointCreation>;
  /** An owner deletes an endpoint, its deliveries with it. Audited. */
  deleteWebhookEndpoint(accountId: string, organizationId: string, endpointId: string): Promise<WebhookEndpointChange>;
  /** An owner enables a disabled endpoint again. Audited. */
  enableWebhookEndpoint(accountId: string, organizationId: string, endpointId: string): Promise<WebhookEndpointChange>;
  /** The endpoint's deliveries, newest first, `limit` of them after `cursor`; undefined for an unknown endpoint or cursor. */
  webhookDeliveries(
    organizationId: string,
    endpointId: string,
    page: { cursor: string | undefined; limit: number },
  ): Promise<WebhookDeliveryList | undefined>;
  webhookDelivery(
    organizationId: string,
    endpointId: string,
    deliveryId: string,
  ): Promise<WebhookDeliveryDetail | undefined>;
  /** An owner sends a delivery's event to its endpoint again, as a new delivery. */
  resendWebhookDelivery(
    accountId: string,
    organizationId: string,
    endpointId: string,
    deliveryId: string,
  ): Promise<WebhookResending>;
}
