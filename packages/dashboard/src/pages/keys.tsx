import type { ApiKeyRow } from '../store.js';
import { Layout, Notice } from './layout.js';
import { Pager } from './pager.js';
import { Time } from './times.js';
import type { KeyFormValues, KeysPageProps } from './props.js';
import { ListHead } from './list-head.js';

/** The organization's API keys; owners also create and revoke them. */
export function KeysPage({ session, keys, scopes, pages = { page: 1, more: false }, form }: KeysPageProps) {
  const current = session.current;
  if (!current) {
    return (
      <Layout title="API keys" session={session} section="/keys">
        <h1>API keys</h1>
        <p>You belong to no organization yet: ask an owner for an invitation.</p>
      </Layout>
    );
  }
  const owner = current.role === 'owner';
  return (
    <Layout title="API keys" session={session} section="/keys">
      <h1>API keys</h1>
      <p class="muted">
        Keys of <strong>{current.name}</strong>. The hub keeps only each key's prefix; a key's secret is shown once,
        when it is created.
      </p>
      {keys.length === 0 && pages.page === 1 ? (
        <p class="empty">No API keys yet: create one to use the API.</p>
      ) : (
        <KeyTable keys={keys} owner={owner} />
      )}
      <Pager path="/keys" pages={pages} label="Pages of API keys" />
      {owner ? (
        <CreateKeyForm values={form ?? { name: '', scopes: [] }} scopes={scopes} />
      ) : (
        <p class="muted">Only owners create and revoke keys.</p>
      )}
    </Layout>
  );
}

function KeyTable({ keys, owner }: { keys: ApiKeyRow[]; owner: boolean }) {
  return (
    <table class="list keys">
      <ListHead
        columns={['Name', 'Prefix', 'Scopes', 'Created', 'Created by', 'Last used', 'Status']}
        actions={owner}
      />
      <tbody>
        {keys.map((key) => (
          <tr key={key.id}>
            <td data-label="Name">{key.name}</td>
            <td data-label="Prefix">
              <code>{key.prefix}</code>
            </td>
            <td data-label="Scopes">
              <span class="scopes">
                {key.scopes.map((scope) => (
                  <code key={scope}>{scope}</code>
                ))}
              </span>
            </td>
            <td data-label="Created">
              <Time at={key.createdAt} />
            </td>
            <td data-label="Created by">{key.createdBy ?? <span class="muted">—</span>}</td>
            <td data-label="Last used">
              <Time at={key.lastUsedAt} none="never" />
            </td>
            <td data-label="Status">
              <span class={`status ${key.status}`}>{key.status}</span>
            </td>
            {owner ? (
              <td data-label="">
                {key.status === 'active' ? (
                  <a class="button danger" href={`/keys/${encodeURIComponent(key.id)}/revoke`}>
                    Revoke<span class="visually-hidden"> {key.name}</span>
                  </a>
                ) : null}
              </td>
            ) : null}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function CreateKeyForm({ values, scopes }: { values: KeyFormValues; scopes: readonly string[] }) {
  return (
    <section aria-labelledby="create-key">
      <h2 id="create-key">Create a key</h2>
      <Notice message={values.message} />
      <form class="stack" method="post" action="/keys">
        <label for="key-name">Name</label>
        <input
          id="key-name"
          name="name"
          required
          maxLength={200}
          value={values.name}
          aria-describedby="key-name-hint"
        />
        <small id="key-name-hint" class="muted">
          What the key is for, for people: "CI deploys", "laptop".
        </small>
        <fieldset>
          <legend>Scopes</legend>
          {scopes.map((scope) => (
            <label key={scope} class="check">
              <input type="checkbox" name="scopes" value={scope} checked={values.scopes.includes(scope)} />
              <code>{scope}</code>
            </label>
          ))}
        </fieldset>
        <button type="submit">Create key</button>
      </form>
    </section>
  );
}
