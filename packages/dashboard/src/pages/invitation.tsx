import { formatTime } from './format.js';
import { Layout, Notice } from './layout.js';
import type { InvitationCreatedPageProps, InvitationPageProps } from './members-props.js';

/** The one time an invitation link is shown: the hub keeps only its digest. */
export function InvitationCreatedPage({ session, link, role, expiresAt }: InvitationCreatedPageProps) {
  return (
    <Layout title="Invitation created" session={session} section="/members">
      <h1>Invitation created</h1>
      <p>
        Whoever opens this link can join <strong>{session.current?.name}</strong> as{' '}
        {role === 'owner' ? 'an owner' : 'a member'}, once, until{' '}
        <time datetime={expiresAt.toISOString()}>{formatTime(expiresAt)}</time>.
      </p>
      <p class="notice warning" role="status">
        Copy the link now and pass it on to the person you invite: the hub sends no mail and shows this link only once.
      </p>
      <div class="secret">
        <label for="invitation-link">Invitation link</label>
        <div class="copy-row">
          <input id="invitation-link" class="code" readonly value={link} autocomplete="off" spellcheck={false} />
          <button type="button" class="secondary" data-copy="invitation-link" hidden>
            Copy
          </button>
        </div>
        <p class="muted copy-status" data-copy-status="invitation-link" aria-live="polite" />
      </div>
      <p>
        <a href="/members">Back to members</a>
      </p>
    </Layout>
  );
}

/** An open invitation: accept it into the signed-in account, or create an account with it. */
export function InvitationPage({
  token,
  organizationName,
  role,
  expiresAt,
  session,
  values,
  message,
}: InvitationPageProps) {
  const action = `/invitations/${encodeURIComponent(token)}`;
  return (
    <Layout title="Invitation" session={session}>
      <div class="narrow">
        <h1>Join {organizationName}</h1>
        <p>
          You are invited to join <strong>{organizationName}</strong> as {role === 'owner' ? 'an owner' : 'a member'}.
          The invitation works once, until <time datetime={expiresAt.toISOString()}>{formatTime(expiresAt)}</time>.
        </p>
        <Notice message={message} />
        {session ? (
          <form class="stack" method="post" action={action}>
            <p>
              You are signed in as <strong>{session.account.name}</strong> ({session.account.email}). To join with
              another account, sign out first and open this link again.
            </p>
            <button type="submit">Join as {session.account.name}</button>
          </form>
        ) : (
          <>
            <form class="stack" method="post" action={action}>
              <label for="name">Your name</label>
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
              <button type="submit">Create the account and join</button>
            </form>
            <p class="muted">
              Have an account already? Enter its e-mail and password above to join with it (its name stays as it is), or{' '}
              <a href="/sign-in">sign in</a>, then open this link again.
            </p>
          </>
        )}
      </div>
    </Layout>
  );
}
