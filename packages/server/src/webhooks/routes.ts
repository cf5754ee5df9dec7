import { isUuid } from '@hub/schemas';
import { unauthorized } from '../auth/api-key.js';
import type { Hub } from '../hub.js';
import { authOf } from '../http/context.js';
import { handle, type Handlers } from '../http/operation.js';
import { HttpProblem } from '../problems/problem.js';
import { createEndpoint, deleteEndpoint, enableEndpoint } from './service.js';
import { DEFAULT_WEBHOOKS } from './settings.js';
import {
  DeliveryLogRepository,
  EndpointRepository,
  type DeliveryDetail,
  type DeliveryRow,
  type EndpointRow,
} from './sql.js';

export const DELIVERY_PAGE = 50;

/** An endpoint as the API shows it: never its secret, which only its creation answers. */
export function endpointView(row: EndpointRow) {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    description: row.description,
    status: row.status,
    createdAt: row.createdAt.toISOString(),
    disabledAt: row.disabledAt?.toISOString() ?? null,
  };
}

export function deliveryView(row: DeliveryRow) {
  return {
    id: row.id,
    eventId: row.eventId,
    type: row.type,
    attempt: row.attempt,
    status: row.status,
    ...(row.responseStatus === null ? {} : { responseStatus: row.responseStatus }),
    durationMs: row.durationMs,
    createdAt: row.createdAt.toISOString(),
    nextAttemptAt: row.nextAttemptAt?.toISOString() ?? null,
  };
}

export function detailView(detail: DeliveryDetail) {
  return {
    delivery: deliveryView(detail.delivery),
    attempts: detail.attempts.map((attempt) => ({
      attempt: attempt.attempt,
      startedAt: attempt.startedAt.toISOString(),
      durationMs: attempt.durationMs,
      ...(attempt.responseStatus === null ? {} : { responseStatus: attempt.responseStatus }),
      ...(attempt.responseExcerpt === null ? {} : { responseBody: attempt.responseExcerpt }),
      ...(attempt.error === null ? {} : { error: attempt.error }),
    })),
    payload: detail.payload,
  };
}

const endpointNotFound = (id: string) =>
  new HttpProblem('webhook_endpoint_not_found', `The organization has no webhook endpoint ${id}.`);
const deliveryNotFound = (id: string) =>
  new HttpProblem('webhook_delivery_not_found', `The endpoint has no delivery ${id}.`);

/** Outbound webhooks' endpoints and delivery log (DECISIONS.md, Outbound webhooks), for keys with webhooks:manage. */
export function webhookHandlers(hub: Hub): Handlers {
  const settings = hub.options.webhooks ?? DEFAULT_WEBHOOKS;
  /** The organization's endpoint named in the path, or 404. */
  const endpointOf = async (organizationId: string, id: string): Promise<EndpointRow> => {
    const endpoint = isUuid(id)
      ? await new EndpointRepository(hub.sql).find(organizationId, id.toLowerCase())
      : undefined;
    if (endpoint === undefined) throw endpointNotFound(id);
    return endpoint;
  };
  return {
    listWebhookEndpoints: handle(async ({ req, res }) => {
      const rows = await new EndpointRepository(hub.sql).list(authOf(req).organizationId);
      res.json({ webhookEndpoints: rows.map(endpointView) });
    }),
    createWebhookEndpoint: handle(async ({ req, res, body }) => {
      const { organizationId, keyId } = authOf(req);
      const created = await createEndpoint(
        hub.sql,
        { kind: 'key', id: keyId },
        organizationId,
        body,
        settings.allowPrivate,
      );
      if (created.ok) {
        res.status(201).json({ ...endpointView(created.endpoint), secret: created.secret });
        return;
      }
      // `forbidden` is an account's that is no owner: never a key's.
      if (created.reason !== 'destination') throw unauthorized();
      throw new HttpProblem('invalid_webhook_destination', `${body.url} is not a destination this hub sends to.`, {
        issues: [{ pointer: '/url', code: 'webhook.destination', message: created.message }],
      });
    }),
    deleteWebhookEndpoint: handle(async ({ req, res, params }) => {
      const { organizationId, keyId } = authOf(req);
      const { endpointId } = params;
      const deleted = isUuid(endpointId)
        ? await deleteEndpoint(hub.sql, { kind: 'key', id: keyId }, organizationId, endpointId.toLowerCase())
        : undefined;
      if (deleted === undefined || deleted === 'forbidden') throw endpointNotFound(endpointId);
      res.status(204).end();
    }),
    enableWebhookEndpoint: handle(async ({ req, res, params }) => {
      const { organizationId, keyId } = authOf(req);
      const { endpointId } = params;
      const enabled = isUuid(endpointId)
        ? await enableEndpoint(hub.sql, { kind: 'key', id: keyId }, organizationId, endpointId.toLowerCase())
        : undefined;
      if (enabled === undefined || enabled === 'forbidden') throw endpointNotFound(endpointId);
      res.json(endpointView(enabled));
    }),
    listWebhookDeliveries: handle(async ({ req, res, params, query }) => {
      const endpoint = await endpointOf(authOf(req).organizationId, params.endpointId);
      const { cursor } = query;
      const limit = query.limit ?? DELIVERY_PAGE;
      const rows =
        cursor === undefined || isUuid(cursor)
          ? await new DeliveryLogRepository(hub.sql).page(endpoint.id, cursor?.toLowerCase(), limit)
          : undefined;
      if (rows === undefined)
        throw new HttpProblem(
          'invalid_request',
          'The cursor is not one this hub gave; pass `nextCursor` from an answer.',
          {
            issues: [
              {
                pointer: '',
                code: 'request.pattern',
                message: 'The query parameter cursor is not a cursor this hub gave.',
              },
            ],
          },
        );
      const page = rows.slice(0, limit);
      res.json({
        deliveries: page.map(deliveryView),
        nextCursor: rows.length > limit ? (page.at(-1)?.id ?? null) : null,
      });
    }),
    getWebhookDelivery: handle(async ({ req, res, params }) => {
      const endpoint = await endpointOf(authOf(req).organizationId, params.endpointId).catch(() => {
        throw deliveryNotFound(params.deliveryId);
      });
      const detail = isUuid(params.deliveryId)
        ? await new DeliveryLogRepository(hub.sql).detail(endpoint.id, params.deliveryId.toLowerCase())
        : undefined;
      if (detail === undefined) throw deliveryNotFound(params.deliveryId);
      res.json(detailView(detail));
    }),
    resendWebhookDelivery: handle(async ({ req, res, params }) => {
      const endpoint = await endpointOf(authOf(req).organizationId, params.endpointId).catch(() => {
        throw deliveryNotFound(params.deliveryId);
      });
      if (endpoint.status === 'disabled')
        throw new HttpProblem('webhook_endpoint_disabled', 'The endpoint is disabled; enable it, then resend.');
      const made = isUuid(params.deliveryId)
        ? await new DeliveryLogRepository(hub.sql).resend(endpoint.id, params.deliveryId.toLowerCase())
        : undefined;
      if (made === undefined) throw deliveryNotFound(params.deliveryId);
      res.status(202).json(deliveryView(made));
    }),
  };
}
