// The data the Webhooks pages render: plain values, loaded by routes/webhooks.ts.
import type { WebhookDeliveryDetail, WebhookDeliveryRow, WebhookEndpointRow } from '../ports/webhooks.js';
import type { SessionView } from '../store.js';

/** The add form as it was sent, with what is wrong: by the URL field, or above the form. */
export interface WebhookFormValues {
  url: string;
  events: string[];
  description: string;
  urlMessage?: string | undefined;
  message?: string | undefined;
}

export interface WebhooksPageProps {
  session: SessionView;
  endpoints: WebhookEndpointRow[];
  form?: WebhookFormValues | undefined;
  notice?: string | undefined;
}

export interface WebhookCreatedPageProps {
  session: SessionView;
  endpoint: WebhookEndpointRow;
  secret: string;
}

export interface WebhookEndpointPageProps {
  session: SessionView;
  endpoint: WebhookEndpointRow;
  deliveries: WebhookDeliveryRow[];
  /** The link to the next, older page; undefined on the last one. */
  olderHref: string | undefined;
  /** Not the first page: a link back to the newest deliveries. */
  paged: boolean;
  notice?: string | undefined;
}

export interface WebhookDeliveryPageProps {
  session: SessionView;
  endpoint: WebhookEndpointRow;
  detail: WebhookDeliveryDetail;
  notice?: string | undefined;
}

export interface DeleteWebhookPageProps {
  session: SessionView;
  endpoint: WebhookEndpointRow;
}
