import { Layout } from './layout.js';
import type { KeyCreatedPageProps } from './props.js';

/** The one time a key's secret is shown: read-only, with a copy button when script runs. */
export function KeyCreatedPage({ session, name, prefix, secret }: KeyCreatedPageProps) {
  return (
    <Layout title="Key created" session={session} section="/keys">
      <h1>Key created</h1>
      <p>
        <strong>{name}</strong> (<code>{prefix}</code>) is ready.
      </p>
      <p class="notice warning" role="status">
        Copy the key now: this is the only time the hub shows it. The hub keeps only its prefix, so a lost key cannot be
        shown again; revoke it and create another.
      </p>
      <div class="secret">
        <label for="secret">API key</label>
        <div class="copy-row">
          <input id="secret" class="code" readonly value={secret} autocomplete="off" spellcheck={false} />
          <button type="button" class="secondary" data-copy="secret" hidden>
            Copy
          </button>
        </div>
        <p class="muted copy-status" data-copy-status="secret" aria-live="polite" />
      </div>
      <p>
        <a href="/keys">Back to API keys</a>
      </p>
    </Layout>
  );
}
