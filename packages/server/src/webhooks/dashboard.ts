import type { Sql } from 'postgres';
import type { WebhooksPort } from '@hub/dashboard';
import { isUuid } from '@hub/schemas';
import { createEndpoint, deleteEndpoint, enableEndpoint, resendDelivery } from './service.js';
import { DeliveryLogRepository, EndpointRepository } from './sql.js';

/** Ids from a page's path, as the database takes them; undefined when one is not a UUID. */
const ids = (...values: string[]) =>
  values.every((value) => isUuid(value)) ? values.map((value) => value.toLowerCase()) : undefined;

/**
 * The Webhooks part of the dashboard's store: owners' changes go through the service (its role
 * check and its audit), with the account as the Manager; everyone in the organization reads.
 */
export function webhookStore(sql: Sql, allowPrivate: boolean): WebhooksPort {
  const endpoints = new EndpointRepository(sql);
  const log = new DeliveryLogRepository(sql);
  return {
    webhookEndpoints: async (organizationId) => (isUuid(organizationId) ? endpoints.list(organizationId) : []),
    async webhookEndpoint(organizationId, endpointId) {
      const known = ids(organizationId, endpointId);
      return known && endpoints.find(known[0] as string, known[1] as string);
    },
    async createWebhookEndpoint(accountId, organizationId, endpoint) {
      if (!isUuid(accountId) || !isUuid(organizationId)) return { ok: false, reason: 'forbidden' };
      const made = await createEndpoint(
        sql,
        { kind: 'account', id: accountId },
        organizationId,
        endpoint,
        allowPrivate,
      );
      if (made.ok || made.reason === 'destination' || made.reason === 'forbidden') return made;
      return { ok: false, reason: 'forbidden' };
    },
    async deleteWebhookEndpoint(accountId, organizationId, endpointId) {
      const known = ids(accountId, organizationId, endpointId);
      if (known === undefined) return 'not_found';
      const [account, organization, endpoint] = known as [string, string, string];
      const deleted = await deleteEndpoint(sql, { kind: 'account', id: account }, organization, endpoint);
      return deleted === 'forbidden' ? deleted : deleted === undefined ? 'not_found' : 'done';
    },
    async enableWebhookEndpoint(accountId, organizationId, endpointId) {
      const known = ids(accountId, organizationId, endpointId);
      if (known === undefined) return 'not_found';
      const [account, organization, endpoint] = known as [string, string, string];
      const enabled = await enableEndpoint(sql, { kind: 'account', id: account }, organization, endpoint);
      return enabled === 'forbidden' ? enabled : enabled === undefined ? 'not_found' : 'done';
    },
    async webhookDeliveries(organizationId, endpointId, page) {
      const known = ids(organizationId, endpointId, ...(page.cursor === undefined ? [] : [page.cursor]));
      const endpoint = known && (await endpoints.find(known[0] as string, known[1] as string));
      if (endpoint === undefined || known === undefined) return undefined;
      const rows = await log.page(endpoint.id, known[2], page.limit);
      if (rows === undefined) return undefined;
      const deliveries = rows.slice(0, page.limit);
      return { deliveries, older: rows.length > page.limit ? deliveries.at(-1)?.id : undefined };
    },
    async webhookDelivery(organizationId, endpointId, deliveryId) {
      const known = ids(organizationId, endpointId, deliveryId);
      const endpoint = known && (await endpoints.find(known[0] as string, known[1] as string));
      return endpoint && log.detail(endpoint.id, (known as string[])[2] as string);
    },
    async resendWebhookDelivery(accountId, organizationId, endpointId, deliveryId) {
      const known = ids(accountId, organizationId, endpointId, deliveryId);
      if (known === undefined) return { ok: false, reason: 'not_found' };
      const [account, organization, endpoint, delivery] = known as [string, string, string, string];
      return resendDelivery(sql, { kind: 'account', id: account }, organization, endpoint, delivery);
    },
  };
}
