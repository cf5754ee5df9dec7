import type { DaemonEnroller, DaemonRow, DaemonRuntimeView } from '../ports/daemons.js';
import { Pager } from './pager.js';
import type { DaemonsPageProps, RetireDaemonPageProps } from './daemons-runs-props.js';
import { Layout } from './layout.js';
import { Time } from './times.js';
import { ListHead } from './list-head.js';

/** The organization's daemons, online or offline, with their runtimes; owners retire them. */
export function DaemonsPage({ session, daemons, retired, page, more }: DaemonsPageProps) {
  const current = session.current;
  if (!current) {
    return (
      <Layout title="Daemons" session={session} section="/daemons">
        <h1>Daemons</h1>
        <p>You belong to no organization yet: ask an owner for an invitation.</p>
      </Layout>
    );
  }
  const owner = current.role === 'owner';
  const base = retired ? '/daemons?retired=1' : '/daemons';
  return (
    <Layout title="Daemons" session={session} section="/daemons">
      <h1>Daemons</h1>
      <p class="muted">
        Machines that run the agents of <strong>{current.name}</strong>. A daemon is online while it keeps in touch with
        the hub (a heartbeat or a wait for work, at least every 30 seconds by default).
      </p>
      <p>
        {retired ? <a href="/daemons">Hide retired daemons</a> : <a href="/daemons?retired=1">Show retired daemons</a>}
      </p>
      {daemons.length === 0 ? (
        <p class="empty">
          No daemons yet: run <code>hub connect</code> on a machine to enroll one.
        </p>
      ) : (
        <DaemonTable daemons={daemons} owner={owner} />
      )}
      <Pager path={base} pages={{ page, more }} label="Pages of daemons" />
      {owner ? null : <p class="muted">Only owners retire daemons.</p>}
    </Layout>
  );
}

function DaemonTable({ daemons, owner }: { daemons: DaemonRow[]; owner: boolean }) {
  return (
    <table class="list daemons">
      <ListHead columns={['Name', 'Status', 'Last seen', 'Runtimes', 'Enrolled', 'Enrolled by']} actions={owner} />
      <tbody>
        {daemons.map((daemon) => {
          const status = daemon.retiredAt ? 'retired' : daemon.online ? 'online' : 'offline';
          return (
            <tr key={daemon.id}>
              <td data-label="Name">
                <code>{daemon.name}</code>
              </td>
              <td data-label="Status">
                <div>
                  <span class={`status ${status}`}>{status}</span>
                  {daemon.retiredAt ? (
                    <small class="muted retired-at">
                      since <Time at={daemon.retiredAt} />
                    </small>
                  ) : null}
                </div>
              </td>
              <td data-label="Last seen">
                <Time at={daemon.lastSeenAt} none="never" />
              </td>
              <td data-label="Runtimes">
                <Runtimes runtimes={daemon.runtimes} />
              </td>
              <td data-label="Enrolled">
                <Time at={daemon.enrolledAt} />
              </td>
              <td data-label="Enrolled by">
                <EnrolledBy enroller={daemon.enrolledBy} />
              </td>
              {owner ? (
                <td data-label="">
                  {daemon.retiredAt ? null : (
                    <a class="button danger" href={`/daemons/${encodeURIComponent(daemon.id)}/retire`}>
                      Retire<span class="visually-hidden"> {daemon.name}</span>
                    </a>
                  )}
                </td>
              ) : null}
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** A person by name (with their CLI login), or an organization API key by name and prefix. */
function EnrolledBy({ enroller }: { enroller: DaemonEnroller }) {
  if (enroller.kind === 'person') return <span class="enrolled-by">{enroller.name}</span>;
  return (
    <span class="enrolled-by">
      API key {enroller.name} <code class="muted">{enroller.prefix}…</code>
    </span>
  );
}

function Runtimes({ runtimes }: { runtimes: DaemonRuntimeView[] }) {
  if (runtimes.length === 0) return <span class="muted">none</span>;
  return (
    <ul class="runtimes">
      {runtimes.map((runtime, index) => (
        <li key={index}>
          <code>{runtime.provider}</code>
          {runtime.modes.length > 0 ? <span class="muted"> modes: {runtime.modes.join(', ')}</span> : null}
          {runtime.models.length > 0 ? <span class="muted"> models: {runtime.models.join(', ')}</span> : null}
        </li>
      ))}
    </ul>
  );
}

/** The confirmation before a daemon is retired: a page, so it works without script. */
export function RetireDaemonPage({ session, daemon }: RetireDaemonPageProps) {
  return (
    <Layout title="Retire daemon" session={session} section="/daemons">
      <h1>Retire this daemon?</h1>
      <p>
        <code>{daemon.name}</code> stops being able to reach the hub at once: every request it signs gets 401, and no
        new run is assigned to it. Its name can be enrolled again, by a new daemon. This cannot be undone.
      </p>
      {daemon.enrolledBy ? (
        <p class="muted">
          Enrolled by <EnrolledBy enroller={daemon.enrolledBy} />.
        </p>
      ) : null}
      <form class="actions" method="post" action={`/daemons/${encodeURIComponent(daemon.id)}/retire`}>
        <button type="submit" class="danger">
          Retire daemon
        </button>
        <a href="/daemons">Cancel</a>
      </form>
    </Layout>
  );
}
