import type { CliCredentialRow } from '../ports/cli-logins.js';
import { Notice } from './layout.js';
import type { NoticeValue } from './members-props.js';
import { Time } from './times.js';
import { ListHead } from './list-head.js';

/** The account's CLI logins (credentials of `hub login`) in every organization; active ones are revoked here. */
export function CliLogins({ logins, notice }: { logins: CliCredentialRow[]; notice?: NoticeValue | undefined }) {
  return (
    <section aria-labelledby="cli-logins">
      <h2 id="cli-logins">CLI logins</h2>
      <p>
        Run <code>hub login</code> in a terminal and approve the code it shows: that terminal then acts for one of your
        organizations. Revoking a login makes the hub refuse it at once.
      </p>
      <Notice message={notice?.text} kind={notice?.kind} />
      {logins.length === 0 ? <p class="empty">No CLI logins yet.</p> : <CliLoginTable logins={logins} />}
    </section>
  );
}

function CliLoginTable({ logins }: { logins: CliCredentialRow[] }) {
  return (
    <table class="list cli-logins">
      <ListHead columns={['Organization', 'Host', 'Prefix', 'Created', 'Last used', 'Status']} actions={true} />
      <tbody>
        {logins.map((login) => (
          <tr key={login.id}>
            <td data-label="Organization">{login.organization.name}</td>
            <td data-label="Host" class="host">
              {login.host ?? <span class="muted">no host name sent</span>}
            </td>
            <td data-label="Prefix">
              <code>{login.prefix}</code>
            </td>
            <td data-label="Created">
              <Time at={login.createdAt} />
            </td>
            <td data-label="Last used">
              <Time at={login.lastUsedAt} none="never" />
            </td>
            <td data-label="Status">
              <span class={`status ${login.status}`}>{login.status}</span>
            </td>
            <td data-label="">{login.status === 'active' ? <RevokeButton login={login} /> : null}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** One click, no confirmation page: a revoked login costs only a new `hub login`. */
function RevokeButton({ login }: { login: CliCredentialRow }) {
  return (
    <form class="inline" method="post" action={`/account/cli-logins/${encodeURIComponent(login.id)}/revoke`}>
      <button type="submit" class="danger">
        Revoke<span class="visually-hidden"> the login {login.prefix}</span>
      </button>
    </form>
  );
}
