import { WEBHOOK_EVENTS } from '../forms.js';
import type { WebhookEndpointRow } from '../ports/webhooks.js';
import { Layout, Notice } from './layout.js';
import { ListHead } from './list-head.js';
import { Time } from './times.js';
import type {
  DeleteWebhookPageProps,
  WebhookCreatedPageProps,
  WebhookFormValues,
  WebhooksPageProps,
} from './webhooks-props.js';

export const WEBHOOKS_SECTION = '/webhooks';
export const webhookPath = (id: string) => `${WEBHOOKS_SECTION}/${encodeURIComponent(id)}`;
const EMPTY_FORM: WebhookFormValues = { url: '', events: ['*'], description: '' };

/** The organization's webhook endpoints; owners also add, delete and enable them again. */
export function WebhooksPage({ session, endpoints, form, notice }: WebhooksPageProps) {
  const current = session.current;
  if (!current) {
    return (
      <Layout title="Webhooks" session={session} section={WEBHOOKS_SECTION}>
        <h1>Webhooks</h1>
        <p>You belong to no organization yet: ask an owner for an invitation.</p>
      </Layout>
    );
  }
  const owner = current.role === 'owner';
  return (
    <Layout title="Webhooks" session={session} section={WEBHOOKS_SECTION}>
      <h1>Webhooks</h1>
      <p class="muted">
        Where the hub sends <strong>{current.name}</strong>’s events: runs started and completed, configurations and
        triggers installed, daemons gone offline. Each is signed as Standard Webhooks say, and retried for about a day
        until the endpoint answers 2xx.
      </p>
      <Notice message={notice} kind="notice" />
      {endpoints.length === 0 ? (
        <p class="empty">No endpoints yet{owner ? ': add one below.' : '.'}</p>
      ) : (
        <EndpointTable endpoints={endpoints} owner={owner} />
      )}
      {owner ? (
        <AddEndpointForm values={form ?? EMPTY_FORM} />
      ) : (
        <p class="muted">Only owners add, delete and enable endpoints.</p>
      )}
    </Layout>
  );
}

export function EndpointStatus({ endpoint }: { endpoint: Pick<WebhookEndpointRow, 'status'> }) {
  return <span class={`status ${endpoint.status}`}>{endpoint.status}</span>;
}

/** What an endpoint receives: its event types, or all events; `inline` in a sentence. */
export function Events({ events, inline = false }: { events: string[]; inline?: boolean }) {
  if (events.includes('*')) return <span>all events</span>;
  if (inline)
    return (
      <>
        {events.map((event, index) => (
          <span key={event}>
            {index === 0 ? '' : index === events.length - 1 ? ' and ' : ', '}
            <code>{event}</code>
          </span>
        ))}
      </>
    );
  return (
    <span class="scopes">
      {events.map((event) => (
        <code key={event}>{event}</code>
      ))}
    </span>
  );
}

/** Enable again: a form of one button, for a disabled endpoint. */
export function EnableForm({ endpoint }: { endpoint: WebhookEndpointRow }) {
  return (
    <form class="inline" method="post" action={`${webhookPath(endpoint.id)}/enable`}>
      <button type="submit" class="secondary">
        Enable again<span class="visually-hidden"> {endpoint.url}</span>
      </button>
    </form>
  );
}

function EndpointTable({ endpoints, owner }: { endpoints: WebhookEndpointRow[]; owner: boolean }) {
  return (
    <table class="list webhooks">
      <ListHead columns={['URL', 'Events', 'Description', 'Status', 'Created']} actions={owner} />
      <tbody>
        {endpoints.map((endpoint) => (
          <tr key={endpoint.id}>
            <td data-label="URL">
              <a href={webhookPath(endpoint.id)}>
                <code class="url">{endpoint.url}</code>
              </a>
            </td>
            <td data-label="Events">
              <Events events={endpoint.events} />
            </td>
            <td data-label="Description">{endpoint.description ?? <span class="muted">—</span>}</td>
            <td data-label="Status">
              <EndpointStatus endpoint={endpoint} />
            </td>
            <td data-label="Created">
              <Time at={endpoint.createdAt} />
            </td>
            {owner ? (
              <td data-label="">
                <span class="row-actions">
                  {endpoint.status === 'disabled' ? <EnableForm endpoint={endpoint} /> : null}
                  <a class="button danger" href={`${webhookPath(endpoint.id)}/delete`}>
                    Delete<span class="visually-hidden"> {endpoint.url}</span>
                  </a>
                </span>
              </td>
            ) : null}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function AddEndpointForm({ values }: { values: WebhookFormValues }) {
  const all = values.events.includes('*');
  return (
    <section aria-labelledby="add-endpoint">
      <h2 id="add-endpoint">Add an endpoint</h2>
      <Notice message={values.message} />
      <form class="stack" method="post" action={WEBHOOKS_SECTION}>
        <label for="webhook-url">URL</label>
        <input
          id="webhook-url"
          name="url"
          type="url"
          required
          maxLength={2048}
          value={values.url}
          placeholder="https://hooks.example.com/hub"
          aria-invalid={values.urlMessage === undefined ? undefined : 'true'}
          aria-describedby={values.urlMessage === undefined ? 'webhook-url-hint' : 'webhook-url-error webhook-url-hint'}
        />
        {values.urlMessage === undefined ? null : (
          <p id="webhook-url-error" class="field-error" role="alert">
            {values.urlMessage}
          </p>
        )}
        <small id="webhook-url-hint" class="muted">
          Where the hub POSTs each event: an <code>https://</code> address on the public internet.
        </small>
        <fieldset class="events">
          <legend>Events</legend>
          <label class="check">
            <input type="checkbox" name="events" value="*" checked={all} />
            All events (those added later too)
          </label>
          {WEBHOOK_EVENTS.map((event) => (
            <label key={event} class="check">
              <input type="checkbox" name="events" value={event} checked={!all && values.events.includes(event)} />
              <code>{event}</code>
            </label>
          ))}
        </fieldset>
        <label for="webhook-description">Description</label>
        <input
          id="webhook-description"
          name="description"
          maxLength={200}
          value={values.description}
          aria-describedby="webhook-description-hint"
        />
        <small id="webhook-description-hint" class="muted">
          Optional: what receives these events, for people.
        </small>
        <button type="submit">Add endpoint</button>
      </form>
    </section>
  );
}

/** The one time an endpoint's signing secret is shown, with how to verify deliveries with it. */
export function WebhookCreatedPage({ session, endpoint, secret }: WebhookCreatedPageProps) {
  return (
    <Layout title="Endpoint added" session={session} section={WEBHOOKS_SECTION}>
      <h1>Endpoint added</h1>
      <p>
        The hub sends <Events events={endpoint.events} inline /> to <code class="url">{endpoint.url}</code>.
      </p>
      <p class="notice warning" role="status">
        Copy the signing secret now: this is the only time the hub shows it. A lost secret cannot be shown again; delete
        the endpoint and add it again.
      </p>
      <div class="secret">
        <label for="secret">Signing secret</label>
        <div class="copy-row">
          <input id="secret" class="code" readonly value={secret} autocomplete="off" spellcheck={false} />
          <button type="button" class="secondary" data-copy="secret" hidden>
            Copy
          </button>
        </div>
        <p class="muted copy-status" data-copy-status="secret" aria-live="polite" />
      </div>
      <p>
        Verify each delivery with it before trusting the body: the <code>standardwebhooks</code> library (for
        JavaScript, Python, Go, Ruby and more) checks the <code>webhook-id</code>, <code>webhook-timestamp</code> and{' '}
        <code>webhook-signature</code> headers, as in <code>new Webhook(secret).verify(body, headers)</code>. The same
        event keeps its <code>webhook-id</code> on every retry: use it to ignore repeats.
      </p>
      <p class="actions">
        <a href={webhookPath(endpoint.id)}>The endpoint’s deliveries</a>
        <a href={WEBHOOKS_SECTION}>Back to webhooks</a>
      </p>
    </Layout>
  );
}

/** The confirmation before an endpoint is deleted: a page, so it works without script. */
export function DeleteWebhookPage({ session, endpoint }: DeleteWebhookPageProps) {
  return (
    <Layout title="Delete endpoint" session={session} section={WEBHOOKS_SECTION}>
      <h1>Delete this endpoint?</h1>
      <p>
        The hub stops sending to <code class="url">{endpoint.url}</code> at once, and deletes its delivery log with it,
        pending deliveries included. This cannot be undone.
      </p>
      <form class="actions" method="post" action={`${webhookPath(endpoint.id)}/delete`}>
        <button type="submit" class="danger">
          Delete endpoint
        </button>
        <a href={webhookPath(endpoint.id)}>Cancel</a>
      </form>
    </Layout>
  );
}
