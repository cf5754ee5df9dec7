import { h } from 'preact';
import { renderPage } from './render.js';
import { WebhookDeliveryPage, WebhookEndpointPage } from './webhook-deliveries.js';
import { DeleteWebhookPage, WebhookCreatedPage, WebhooksPage } from './webhooks.js';
import type {
  DeleteWebhookPageProps,
  WebhookCreatedPageProps,
  WebhookDeliveryPageProps,
  WebhookEndpointPageProps,
  WebhooksPageProps,
} from './webhooks-props.js';

// The Webhooks pages, each a function of plain data to a whole HTML document (see index.ts).
export type * from './webhooks-props.js';

export const webhooksPage = (props: WebhooksPageProps): string => renderPage(h(WebhooksPage, props));
export const webhookCreatedPage = (props: WebhookCreatedPageProps): string => renderPage(h(WebhookCreatedPage, props));
export const deleteWebhookPage = (props: DeleteWebhookPageProps): string => renderPage(h(DeleteWebhookPage, props));
export const webhookEndpointPage = (props: WebhookEndpointPageProps): string =>
  renderPage(h(WebhookEndpointPage, props));
export const webhookDeliveryPage = (props: WebhookDeliveryPageProps): string =>
  renderPage(h(WebhookDeliveryPage, props));
