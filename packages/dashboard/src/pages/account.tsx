import { CliLogins } from './cli-logins.js';
import { Layout, Notice } from './layout.js';
import type { AccountPageProps } from './members-props.js';

/** The signed-in account: its password, a further organization, and its CLI logins. */
export function AccountPage({ session, password, organization, cliLogins, cliNotice }: AccountPageProps) {
  const values = organization ?? { slug: '', name: '', message: undefined };
  return (
    <Layout title="Account" session={session}>
      <h1>Your account</h1>
      <p class="muted">
        {session.account.name} · {session.account.email}
      </p>
      <section aria-labelledby="change-password">
        <h2 id="change-password">Change password</h2>
        <Notice message={password?.text} kind={password?.kind} />
        <form class="stack" method="post" action="/account/password">
          <label for="current-password">Current password</label>
          <input id="current-password" name="current" type="password" autocomplete="current-password" required />
          <label for="new-password">New password</label>
          <input
            id="new-password"
            name="password"
            type="password"
            autocomplete="new-password"
            required
            minLength={12}
            aria-describedby="new-password-hint"
          />
          <small id="new-password-hint" class="muted">
            At least 12 characters. Your other sessions end and your CLI logins are revoked; this one stays.
          </small>
          <label for="repeat-password">New password again</label>
          <input
            id="repeat-password"
            name="repeat"
            type="password"
            autocomplete="new-password"
            required
            minLength={12}
          />
          <button type="submit">Change password</button>
        </form>
      </section>
      <section aria-labelledby="create-organization">
        <h2 id="create-organization">Create an organization</h2>
        <p>You become its owner, and it becomes your current organization.</p>
        <Notice message={values.message} />
        <form class="stack" method="post" action="/account/organizations">
          <label for="organization-slug">Slug</label>
          <input
            id="organization-slug"
            name="slug"
            required
            maxLength={63}
            pattern="[a-z0-9][a-z0-9\-]{0,62}"
            aria-describedby="organization-slug-hint"
            value={values.slug}
          />
          <small id="organization-slug-hint" class="muted">
            Lowercase letters, digits and hyphens; it names the organization in the API.
          </small>
          <label for="organization-name">Name</label>
          <input id="organization-name" name="name" required maxLength={200} value={values.name} />
          <button type="submit">Create organization</button>
        </form>
      </section>
      <CliLogins logins={cliLogins} notice={cliNotice} />
    </Layout>
  );
}
