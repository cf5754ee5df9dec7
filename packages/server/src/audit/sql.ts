import type { Fragment, ISql } from 'postgres';
import type { Db } from '../db/connect.js';
import { olderThan } from '../db/keyset.js';

/** What happened: a closed set, as the table's check constraint has it. */
export const AUDIT_KINDS = [
  'api_key.created',
  'api_key.revoked',
  'configuration.installed',
  'trigger.installed',
  'run.dispatched',
  'enrollment_token.issued',
  'daemon.enrolled',
  'daemon.retired',
  'member.added',
  'member.removed',
  'member.left',
  'member.role_changed',
  'account.signed_in',
  'cli_credential.created',
  'cli_credential.revoked',
  'run.cancelled',
  'invitation.created',
  'invitation.accepted',
  'invitation.revoked',
  'account.password_changed',
  'project.created',
  'project.deactivated',
  'project.reactivated',
  'project.repository_changed',
  'github_installation.linked',
  'github_installation.unlinked',
  'webhook_endpoint.created',
  'webhook_endpoint.deleted',
  'webhook_endpoint.enabled',
] as const;
export type AuditKind = (typeof AUDIT_KINDS)[number];

/** Who caused it. A daemon is named in the event's subject. */
export type AuditActor =
  { kind: 'key'; id: string } | { kind: 'account'; id: string } | { kind: 'operator' } | { kind: 'daemon' };

export interface AuditEventRow {
  id: string;
  at: Date;
  kind: AuditKind;
  actor: { kind: AuditActor['kind']; id?: string; name?: string; prefix?: string };
  /** The actor as people read it (the dashboard's): see `credentialName`. */
  by: string;
  subject: Record<string, unknown>;
  address: string | null;
}

/**
 * A key as people read it, from the api_keys row `key` and the accounts row `person` of a CLI
 * login's person: a CLI login as its person and the login's name ("Ada Lovelace (hub login on
 * laptop)"), an API key as its name and prefix ("API key ci (hub_pk_abcd1234…)").
 */
export function credentialName(sql: Db, key: string, person: string): Fragment {
  const [k, p] = [sql(key), sql(person)];
  return sql`case when ${k}.kind = 'cli' then coalesce(${p}.name, 'a person') || ' (' || ${k}.name || ')'
    else 'API key ' || ${k}.name || ' (' || ${k}.prefix || '…)' end`;
}

const keyOf = (actor: AuditActor) => (actor.kind === 'key' ? actor.id : null);
const accountOf = (actor: AuditActor) => (actor.kind === 'account' ? actor.id : null);

/**
 * The event's row as an insert's `select` list, for statements that record a change and its
 * event at once (`insert into audit_events ... select <columns> from <the change's CTE>`).
 * `subject` is a SQL expression yielding a JSON object.
 */
export function auditColumns(
  sql: ISql,
  organization: Fragment | string,
  kind: AuditKind,
  actor: AuditActor,
  subject: Fragment,
): Fragment {
  const org = typeof organization === 'string' ? sql`${organization}::uuid` : organization;
  return sql`${org}, ${kind}, ${actor.kind}, ${keyOf(actor)}::uuid, ${accountOf(actor)}::uuid, ${subject}`;
}

/** Events of organizations: each recorded in the transaction of its change (pass the transaction). */
export class AuditRepository {
  constructor(private readonly sql: Db) {}

  async record(
    organizationId: string,
    kind: AuditKind,
    actor: AuditActor,
    subject: Record<string, unknown>,
    address?: string,
  ): Promise<void> {
    await this.sql`
      insert into audit_events (organization_id, kind, actor_kind, api_key_id, account_id, subject, address)
      values (${organizationId}, ${kind}, ${actor.kind}, ${keyOf(actor)}, ${accountOf(actor)}, ${this.sql.json(subject as never)}, ${address ?? null})`;
  }

  /** An account's sign-in, recorded in each organization it belongs to. */
  async signedIn(accountId: string, address: string): Promise<void> {
    await this.sql`
      insert into audit_events (organization_id, kind, actor_kind, account_id, subject, address)
      select m.organization_id, 'account.signed_in', 'account', a.id, jsonb_build_object('accountId', a.id, 'name', a.name), ${address}
      from organization_members m join accounts a on a.id = m.account_id
      where m.account_id = ${accountId}`;
  }

  /** An account's password change, recorded in each organization it belongs to. */
  async passwordChanged(accountId: string): Promise<void> {
    await this.sql`
      insert into audit_events (organization_id, kind, actor_kind, account_id, subject)
      select m.organization_id, 'account.password_changed', 'account', a.id, jsonb_build_object('accountId', a.id, 'name', a.name)
      from organization_members m join accounts a on a.id = m.account_id
      where m.account_id = ${accountId}`;
  }

  /** A member of the organization as an event's subject: id, name and (when given) role. */
  static member(sql: ISql, accountId: string, role?: string): Fragment {
    return sql`(select jsonb_strip_nulls(jsonb_build_object('accountId', a.id, 'name', a.name, 'role', ${role ?? null}::text)) from accounts a where a.id = ${accountId})`;
  }

  /** A member's event, its subject read in the same statement. */
  async memberEvent(
    organizationId: string,
    kind: AuditKind,
    actor: AuditActor,
    memberId: string,
    role?: string,
  ): Promise<void> {
    await this.sql`
      insert into audit_events (organization_id, kind, actor_kind, api_key_id, account_id, subject)
      values (${auditColumns(this.sql, organizationId, kind, actor, AuditRepository.member(this.sql, memberId, role))})`;
  }
}

/** The organization's events, newest first, by keyset: a page goes on after the event named by its cursor. */
export class AuditListRepository {
  constructor(private readonly sql: Db) {}

  /** Up to `limit + 1` events older than the event `before` (from the newest when undefined); the extra one tells of a next page. */
  async list(organizationId: string, before: string | undefined, limit: number): Promise<AuditEventRow[]> {
    const after = olderThan(this.sql, { table: 'audit_events', alias: 'e', at: 'at' }, organizationId, before);
    return this.sql<AuditEventRow[]>`
      select e.id, e.at, e.kind, e.subject, e.address,
        jsonb_strip_nulls(jsonb_build_object('kind', e.actor_kind, 'id', coalesce(e.api_key_id, e.account_id),
          'name', coalesce(k.name, a.name, case when e.actor_kind = 'github' then e.subject ->> 'actor' end), 'prefix', k.prefix)) as actor,
        case e.actor_kind when 'key' then ${credentialName(this.sql, 'k', 'ka')} when 'account' then coalesce(a.name, 'a person')
          when 'operator' then 'operator API' when 'github' then 'GitHub: ' || (e.subject ->> 'actor') else 'a daemon' end as by
      from audit_events e
      left join api_keys k on k.id = e.api_key_id
      left join accounts ka on ka.id = k.account_id
      left join accounts a on a.id = e.account_id
      where e.organization_id = ${organizationId} and ${after}
      order by e.at desc, e.id desc
      limit ${limit + 1}`;
  }
}
