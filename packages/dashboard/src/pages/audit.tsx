import type { AuditEventRow } from '../ports/audit.js';
import type { AuditPageProps } from './audit-props.js';
import { formatTime } from './format.js';
import { Layout } from './layout.js';
import { Time } from './times.js';

/** What each kind of event says, for people. */
const WHAT: Record<string, string> = {
  'api_key.created': 'API key created',
  'api_key.revoked': 'API key revoked',
  'configuration.installed': 'Configuration installed',
  'trigger.installed': 'Trigger installed',
  'run.dispatched': 'Run dispatched',
  'enrollment_token.issued': 'Enrollment token issued',
  'daemon.enrolled': 'Daemon enrolled',
  'daemon.retired': 'Daemon retired',
  'member.added': 'Member added',
  'member.removed': 'Member removed',
  'member.left': 'Member left',
  'member.role_changed': 'Role changed',
  'account.signed_in': 'Signed in',
  'account.password_changed': 'Password changed',
  'cli_credential.created': 'CLI login approved',
  'cli_credential.revoked': 'CLI login revoked',
  'run.cancelled': 'Run cancelled',
  'invitation.created': 'Invitation created',
  'invitation.accepted': 'Invitation accepted',
  'invitation.revoked': 'Invitation revoked',
  'project.created': 'Project created',
  'project.deactivated': 'Project deactivated',
  'project.reactivated': 'Project reactivated',
  'project.repository_changed': 'Repository changed',
  'github_installation.linked': 'GitHub installation linked',
  'github_installation.unlinked': 'GitHub installation unlinked',
  'webhook_endpoint.created': 'Webhook endpoint added',
  'webhook_endpoint.deleted': 'Webhook endpoint deleted',
  'webhook_endpoint.enabled': 'Webhook endpoint enabled again',
};

/** Why an invitation ended with its inviter (invitation.revoked). */
const REASONS: Record<string, string> = {
  inviter_removed: 'inviter removed or left',
  inviter_demoted: 'inviter no longer an owner',
};

const text = (value: unknown): string | undefined =>
  typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;

/** The organization's events, newest first, each with who caused it. */
export function AuditPage({ session, events, olderHref, paged }: AuditPageProps) {
  const current = session.current;
  if (!current) {
    return (
      <Layout title="Audit" session={session} section="/audit">
        <h1>Audit</h1>
        <p>You belong to no organization yet: ask an owner for an invitation.</p>
      </Layout>
    );
  }
  return (
    <Layout title="Audit" session={session} section="/audit">
      <h1>Audit</h1>
      <p class="muted">
        Events of <strong>{current.name}</strong>, newest first, each with the key or person that caused it.
      </p>
      {events.length === 0 ? (
        <p class="empty">
          {paged
            ? 'No older events.'
            : 'No events yet: create an API key on the API keys page, and what it does appears here.'}
        </p>
      ) : (
        <AuditTable events={events} />
      )}
      {paged || olderHref ? (
        <nav class="pager" aria-label="Pages">
          {paged ? <a href="/audit">Newest events</a> : null}
          {olderHref ? <a href={olderHref}>Older events</a> : null}
        </nav>
      ) : null}
    </Layout>
  );
}

function AuditTable({ events }: { events: AuditEventRow[] }) {
  return (
    <table class="list audit">
      <thead>
        <tr>
          <th scope="col">Time</th>
          <th scope="col">What</th>
          <th scope="col">Who</th>
          <th scope="col">Subject</th>
        </tr>
      </thead>
      <tbody>
        {events.map((event) => (
          <tr key={event.id}>
            <td data-label="Time">
              <Time at={event.at} />
            </td>
            <td data-label="What">{WHAT[event.kind] ?? event.kind}</td>
            <td data-label="Who">
              <Who event={event} />
            </td>
            <td data-label="Subject">
              <Subject event={event} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Who did it, as people read it (the hub's `by`): operator and daemon in grey. */
function Who({ event }: { event: AuditEventRow }) {
  const machine = event.actor.kind === 'operator' || event.actor.kind === 'daemon';
  return <span class={machine ? 'muted' : undefined}>{event.by}</span>;
}

/** The subject's names first, then the rest of its fields as `name value` pairs. */
function Subject({ event }: { event: AuditEventRow }) {
  const { subject } = event;
  const parts: [string, string, string?][] = [];
  const add = (label: string, value: unknown, href?: (shown: string) => string) => {
    const shown = text(value);
    if (shown !== undefined) parts.push([label, shown, href?.(shown)]);
  };
  add('', subject.name);
  add('', subject.prefix);
  add('project', subject.projectSlug, (slug) => `/projects/${encodeURIComponent(slug)}`);
  add('trigger', subject.trigger);
  add('version', subject.version);
  add('daemon', subject.daemon);
  add('role', subject.role);
  add('invited by', subject.invitedBy);
  add('reason', REASONS[String(subject.reason)] ?? subject.reason);
  add('host', subject.host);
  add('run', subject.runId, (id) => `/runs/${encodeURIComponent(id)}`);
  add('installation', subject.installationId);
  add('account', subject.account);
  add('url', subject.url);
  if (event.kind === 'project.repository_changed') {
    add('repository', subject.repository ?? 'none');
    add('was', subject.previousRepository ?? 'none');
  }
  add('from', event.address);
  if (typeof subject.expiresAt === 'string') add('valid until', formatTime(new Date(subject.expiresAt)));
  if (parts.length === 0) return <span class="muted">—</span>;
  return (
    <span class="subject">
      {parts.map(([label, value, href], index) => (
        <span key={index}>
          {label === '' ? null : <span class="muted">{label} </span>}
          {label === '' && index === 0 ? (
            <strong>{value}</strong>
          ) : href === undefined ? (
            <code>{value}</code>
          ) : (
            <a href={href}>
              <code>{value}</code>
            </a>
          )}{' '}
        </span>
      ))}
    </span>
  );
}
