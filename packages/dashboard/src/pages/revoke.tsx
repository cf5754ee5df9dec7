import { Layout } from './layout.js';
import type { RevokeKeyPageProps } from './props.js';

/** The confirmation before a key is revoked: a page, so it works without script. */
export function RevokeKeyPage({ session, apiKey }: RevokeKeyPageProps) {
  return (
    <Layout title="Revoke key" session={session} section="/keys">
      <h1>Revoke this key?</h1>
      <p>
        <strong>{apiKey.name}</strong> (<code>{apiKey.prefix}</code>) stops working at once: every request with it gets
        401, and the enrollment tokens it issued and that were not used expire. This cannot be undone.
      </p>
      <form class="actions" method="post" action={`/keys/${encodeURIComponent(apiKey.id)}/revoke`}>
        <button type="submit" class="danger">
          Revoke key
        </button>
        <a href="/keys">Cancel</a>
      </form>
    </Layout>
  );
}
