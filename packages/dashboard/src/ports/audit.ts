// The storage the audit page needs: a part of the dashboard's port (DashboardStore extends it).

export interface AuditActor {
  kind: 'key' | 'account' | 'operator' | 'daemon';
  id?: string;
  /** The key's or the account's name. */
  name?: string;
  /** A key's display prefix. */
  prefix?: string;
}

export interface AuditEventRow {
  id: string;
  at: Date;
  /** What happened: `api_key.created`, `run.dispatched`, `member.added`, … */
  kind: string;
  actor: AuditActor;
  /** The actor as people read it: "Ada Lovelace (hub login on laptop)", "API key ci (hub_pk_abcd1234…)", "operator API". */
  by: string;
  /** What it happened to, as it was then: ids and names (key, project and version, run, daemon, member and role…). */
  subject: Record<string, unknown>;
  /** The client's address, for sign-ins. */
  address: string | null;
}

export interface AuditList {
  events: AuditEventRow[];
  /** The cursor of the next (older) page; undefined on the last page. */
  older: string | undefined;
}

export interface AuditPort {
  /** The organization's events, newest first, `limit` of them after `cursor` (from an earlier page). */
  auditEvents(organizationId: string, page: { cursor: string | undefined; limit: number }): Promise<AuditList>;
}
