import { Layout, Notice } from './layout.js';
import type { SetupPageProps } from './props.js';

/** The one form of a new hub: the owner's account and the first organization. */
export function SetupPage({ token, values, message }: SetupPageProps) {
  return (
    <Layout title="Set up the hub">
      <div class="narrow">
        <h1>Set up the hub</h1>
        <p>Create the owner's account and the first organization. This link works once.</p>
        <Notice message={message} />
        <form class="stack" method="post" action="/setup">
          <input type="hidden" name="token" value={token} />
          <fieldset>
            <legend>Owner</legend>
            <label for="name">Name</label>
            <input id="name" name="name" autocomplete="name" required maxLength={200} value={values.name} />
            <label for="email">E-mail</label>
            <input
              id="email"
              name="email"
              type="email"
              autocomplete="username"
              required
              maxLength={254}
              value={values.email}
            />
            <label for="password">Password</label>
            <input
              id="password"
              name="password"
              type="password"
              autocomplete="new-password"
              required
              minLength={12}
              aria-describedby="password-hint"
            />
            <small id="password-hint" class="muted">
              At least 12 characters.
            </small>
          </fieldset>
          <fieldset>
            <legend>First organization</legend>
            <label for="slug">Slug</label>
            <input
              id="slug"
              name="slug"
              required
              maxLength={63}
              pattern="[a-z0-9][a-z0-9\-]{0,62}"
              aria-describedby="slug-hint"
              value={values.slug}
            />
            <small id="slug-hint" class="muted">
              Lowercase letters, digits and hyphens; it names the organization in the API.
            </small>
            <label for="organization-name">Name</label>
            <input
              id="organization-name"
              name="organizationName"
              required
              maxLength={200}
              value={values.organizationName}
            />
          </fieldset>
          <button type="submit">Create the owner and the organization</button>
        </form>
      </div>
    </Layout>
  );
}
