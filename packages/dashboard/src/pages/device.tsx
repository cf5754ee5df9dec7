import type { SessionView } from '../store.js';
import { Layout, Notice } from './layout.js';
import type { DeviceCodePageProps, DeviceConfirmPageProps } from './device-props.js';
import { scopeMeaning } from './scopes.js';
import { Time } from './times.js';

/** The verification page of `hub login` (RFC 8628, section 3.3): the code, typed or confirmed. */
export function DeviceCodePage({ session, code, message }: DeviceCodePageProps) {
  return (
    <Layout title="Log in the Hub CLI" session={session}>
      <div class="narrow">
        <h1>Log in the Hub CLI</h1>
        <p>
          {code === '' ? 'Type the code that ' : 'Check that this is the code that '}
          <code>hub login</code> shows in your terminal.
        </p>
        <Notice message={message} />
        <form class="stack" method="post" action="/device">
          <label for="user-code">Code</label>
          <input
            id="user-code"
            class="code user-code"
            name="user_code"
            value={code}
            required
            maxLength={32}
            placeholder="BCDF-GHJK"
            autocomplete="off"
            autocapitalize="characters"
            spellcheck={false}
            aria-describedby="user-code-hint"
          />
          <small id="user-code-hint" class="muted">
            8 letters; the hyphen and the case do not matter.
          </small>
          <button type="submit">Continue</button>
        </form>
      </div>
    </Layout>
  );
}

/** What is asking, what it may do, and for which organization: approve or deny. */
export function DeviceConfirmPage({ session, request }: DeviceConfirmPageProps) {
  const member = session.organizations.length > 0;
  return (
    <Layout title="Approve a CLI login" session={session}>
      <div class="device">
        <h1>Approve this CLI login?</h1>
        {/* RFC 8628, section 5.4: a code can be phished; only the person who started the login should approve it. */}
        <p class="notice warning" role="status">
          Approve only a login you started yourself, in your own terminal, just now. If someone sent you this link or
          code, deny it: approving would let them act for your organization.
        </p>
        <dl class="facts">
          <dt>Code</dt>
          <dd>
            <code class="user-code">{request.userCode}</code>
          </dd>
          <dt>Client</dt>
          <dd>
            <code>{request.clientId}</code>, the Hub command-line client
          </dd>
          <dt>Host name</dt>
          <dd>{request.host ?? <span class="muted">no host name sent</span>}</dd>
          <dt>Code expires</dt>
          <dd>
            <Time at={request.expiresAt} />
          </dd>
        </dl>
        <h2>What it may do</h2>
        <ul class="scope-list">
          {request.scopes.map((scope) => (
            <li key={scope}>
              <code>{scope}</code>
              {scopeMeaning(scope) === undefined ? null : <span>: {scopeMeaning(scope)}</span>}
            </li>
          ))}
        </ul>
        <p>It keeps working until you revoke it on your account page, or leave the organization.</p>
        <form class="stack" method="post" action="/device/approve">
          <input type="hidden" name="user_code" value={request.userCode} />
          {member ? (
            <OrganizationChoice session={session} />
          ) : (
            <Notice message="You belong to no organization, so there is none to log in to: deny, or ask an owner for an invitation first." />
          )}
          <div class="actions">
            {member ? <button type="submit">Approve</button> : null}
            <button type="submit" class="danger" formAction="/device/deny">
              Deny
            </button>
          </div>
        </form>
      </div>
    </Layout>
  );
}

/** The organization the login acts for: a choice only for people in several, the current one first chosen. */
function OrganizationChoice({ session }: { session: SessionView }) {
  const [only] = session.organizations;
  if (session.organizations.length === 1 && only) {
    return (
      <p>
        <input type="hidden" name="organization" value={only.organizationId} />
        For <strong>{only.name}</strong>.
      </p>
    );
  }
  return (
    <>
      <label for="organization-choice">Organization</label>
      <select id="organization-choice" name="organization" aria-describedby="organization-choice-hint">
        {session.organizations.map((organization) => (
          <option
            key={organization.organizationId}
            value={organization.organizationId}
            selected={organization.organizationId === session.current?.organizationId}
          >
            {organization.name}
          </option>
        ))}
      </select>
      <small id="organization-choice-hint" class="muted">
        The login acts for this organization only; for another, run hub login again.
      </small>
    </>
  );
}
