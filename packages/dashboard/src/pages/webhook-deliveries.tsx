import type { WebhookAttemptRow, WebhookDeliveryRow } from '../ports/webhooks.js';
import { Layout, Notice } from './layout.js';
import { Time } from './times.js';
import { EnableForm, EndpointStatus, Events, WEBHOOKS_SECTION, webhookPath } from './webhooks.js';
import type { WebhookDeliveryPageProps, WebhookEndpointPageProps } from './webhooks-props.js';

const deliveryPath = (endpointId: string, deliveryId: string) =>
  `${webhookPath(endpointId)}/deliveries/${encodeURIComponent(deliveryId)}`;
const duration = (ms: number) => (ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`);

function DeliveryStatus({ delivery }: { delivery: WebhookDeliveryRow }) {
  return <span class={`status ${delivery.status}`}>{delivery.status}</span>;
}

function Response({ status, error }: { status: number | null; error?: string | null }) {
  if (status !== null) return <code>{status}</code>;
  if (error) return <span class="attempt-error">{error}</span>;
  return <span class="muted">—</span>;
}

/** An endpoint: what it receives, and its recent deliveries, newest first. */
export function WebhookEndpointPage(props: WebhookEndpointPageProps) {
  const { session, endpoint, deliveries, olderHref, paged, notice } = props;
  const owner = session.current?.role === 'owner';
  const path = webhookPath(endpoint.id);
  return (
    <Layout title="Webhook endpoint" session={session} section={WEBHOOKS_SECTION}>
      <p class="crumbs">
        <a href={WEBHOOKS_SECTION}>Webhooks</a>
      </p>
      <h1 class="url-heading">
        <code class="url">{endpoint.url}</code>
      </h1>
      <Notice message={notice} kind="notice" />
      {endpoint.status === 'disabled' ? (
        <div class="notice warning endpoint-disabled">
          <p>
            The hub disabled this endpoint <Time at={endpoint.disabledAt} none="" />: it answered nothing but failures
            for 5 days. The hub sends it no new event until an owner enables it again; its pending deliveries then go
            out at once.
          </p>
          {owner ? <EnableForm endpoint={endpoint} /> : null}
        </div>
      ) : null}
      <dl class="facts">
        <dt>Events</dt>
        <dd>
          <Events events={endpoint.events} />
        </dd>
        <dt>Description</dt>
        <dd>{endpoint.description ?? <span class="muted">—</span>}</dd>
        <dt>Status</dt>
        <dd>
          <EndpointStatus endpoint={endpoint} />
        </dd>
        <dt>Created</dt>
        <dd>
          <Time at={endpoint.createdAt} />
        </dd>
      </dl>
      <h2>Deliveries</h2>
      {deliveries.length === 0 ? (
        <p class="empty">{paged ? 'No older deliveries.' : 'No deliveries yet: events from now on appear here.'}</p>
      ) : (
        <table class="list deliveries">
          <thead>
            <tr>
              {['Event', 'Status', 'Attempts', 'Response', 'Duration', 'Time'].map((column) => (
                <th scope="col" key={column}>
                  {column}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {deliveries.map((delivery) => (
              <tr key={delivery.id}>
                <td data-label="Event">
                  <a href={deliveryPath(endpoint.id, delivery.id)}>
                    <code>{delivery.type}</code>
                  </a>
                </td>
                <td data-label="Status">
                  <DeliveryStatus delivery={delivery} />
                </td>
                <td data-label="Attempts">{delivery.attempt}</td>
                <td data-label="Response">
                  <Response status={delivery.responseStatus} />
                </td>
                <td data-label="Duration">{delivery.attempt === 0 ? '—' : duration(delivery.durationMs)}</td>
                <td data-label="Time">
                  <Time at={delivery.createdAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {paged || olderHref ? (
        <nav class="pager" aria-label="Pages of deliveries">
          {paged ? <a href={path}>Newest deliveries</a> : null}
          {olderHref ? <a href={olderHref}>Older deliveries</a> : null}
        </nav>
      ) : null}
      {owner ? (
        <p class="actions project-actions">
          <a class="button danger" href={`${path}/delete`}>
            Delete endpoint
          </a>
        </p>
      ) : null}
    </Layout>
  );
}

/** One delivery: each attempt and what it got back, the payload sent, and Resend for owners. */
export function WebhookDeliveryPage({ session, endpoint, detail, notice }: WebhookDeliveryPageProps) {
  const { delivery, attempts, payload } = detail;
  const owner = session.current?.role === 'owner';
  const path = deliveryPath(endpoint.id, delivery.id);
  return (
    <Layout title={`Delivery of ${delivery.type}`} session={session} section={WEBHOOKS_SECTION}>
      <p class="crumbs">
        <a href={WEBHOOKS_SECTION}>Webhooks</a> › <a href={webhookPath(endpoint.id)}>{endpoint.url}</a>
      </p>
      <div class="heading-actions">
        <h1>
          Delivery of <code>{delivery.type}</code>
        </h1>
        {owner && endpoint.status === 'enabled' ? (
          <form class="inline" method="post" action={`${path}/resend`}>
            <button type="submit">Resend</button>
          </form>
        ) : null}
      </div>
      <Notice message={notice} kind="notice" />
      {owner && endpoint.status === 'disabled' ? (
        <p class="notice warning">The endpoint is disabled: enable it again on its page, then resend.</p>
      ) : null}
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <DeliveryStatus delivery={delivery} />
          {delivery.nextAttemptAt === null ? null : (
            <span class="muted">
              {' '}
              (next attempt <Time at={delivery.nextAttemptAt} />)
            </span>
          )}
        </dd>
        <dt>Created</dt>
        <dd>
          <Time at={delivery.createdAt} />
        </dd>
        <dt>webhook-id</dt>
        <dd>
          <code>{delivery.eventId}</code>
        </dd>
      </dl>
      <h2>Attempts</h2>
      {attempts.length === 0 ? (
        <p class="empty">No attempt yet: the hub tries it shortly.</p>
      ) : (
        <table class="list attempts">
          <thead>
            <tr>
              {['Attempt', 'Time', 'Response', 'Duration', 'Response body'].map((column) => (
                <th scope="col" key={column}>
                  {column}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {attempts.map((attempt) => (
              <Attempt key={attempt.attempt} attempt={attempt} />
            ))}
          </tbody>
        </table>
      )}
      <h2>Payload</h2>
      <pre class="source payload" tabIndex={0}>
        <code>{JSON.stringify(payload, null, 2)}</code>
      </pre>
    </Layout>
  );
}

function Attempt({ attempt }: { attempt: WebhookAttemptRow }) {
  return (
    <tr>
      <td data-label="Attempt">{attempt.attempt}</td>
      <td data-label="Time">
        <Time at={attempt.startedAt} />
      </td>
      <td data-label="Response">
        <Response status={attempt.responseStatus} error={attempt.error} />
      </td>
      <td data-label="Duration">{duration(attempt.durationMs)}</td>
      <td data-label="Response body">
        {attempt.responseExcerpt === null || attempt.responseExcerpt === '' ? (
          <span class="muted">—</span>
        ) : (
          <pre class="excerpt">{attempt.responseExcerpt}</pre>
        )}
      </td>
    </tr>
  );
}
