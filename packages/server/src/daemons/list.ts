import type { Db } from '../db/connect.js';

/** Who enrolled a daemon: a person (through their CLI credential), or an organization API key. */
export type Enroller =
  { kind: 'person'; accountId: string; name: string } | { kind: 'key'; name: string; prefix: string };

export interface DaemonListRow {
  id: string;
  name: string;
  online: boolean;
  lastSeenAt: Date | null;
  runtimes: { provider: string; modes?: string[]; models?: string[] }[];
  enrolledAt: Date;
  retiredAt: Date | null;
  enrolledBy: Enroller;
}

/**
 * The organization's daemons as people see them. Online is the dispatcher's rule (runs/dispatch/sql.ts):
 * seen within `offlineAfterMs` by the database's clock, and not retired.
 */
export class DaemonListRepository {
  constructor(
    private readonly sql: Db,
    private readonly offlineAfterMs: number,
  ) {}

  /** Active daemons by name, then (with `retired`) retired ones, newest retirement first; one more than `limit` tells of a next page. */
  async list(
    organizationId: string,
    query: { retired: boolean; offset: number; limit: number },
  ): Promise<DaemonListRow[]> {
    return this.sql<DaemonListRow[]>`
      select ${this.columns()}
      from daemons
      where organization_id = ${organizationId} and (${query.retired} or retired_at is null)
      order by retired_at desc nulls first, name, id
      offset ${query.offset} limit ${query.limit + 1}`;
  }

  /** By its primary key alone, the organization checked after (see runs/run-view.ts, byId). */
  async find(organizationId: string, daemonId: string): Promise<DaemonListRow | undefined> {
    const [row] = await this.sql<DaemonListRow[]>`
      with one as materialized (select * from daemons where id = ${daemonId})
      select ${this.columns()} from one daemons where organization_id = ${organizationId}`;
    return row;
  }

  private columns() {
    return this
      .sql`id, name, runtimes, created_at as "enrolledAt", coalesce(last_seen_at, stopped_at) as "lastSeenAt", retired_at as "retiredAt",
      coalesce(retired_at is null and last_seen_at > now() - ${this.offlineAfterMs} * interval '1 millisecond', false) as online,
      (select case when k.kind = 'cli'
                then jsonb_build_object('kind', 'person', 'accountId', a.id, 'name', a.name)
                else jsonb_build_object('kind', 'key', 'name', k.name, 'prefix', k.prefix) end
       from enrollment_tokens t join api_keys k on k.id = t.api_key_id left join accounts a on a.id = k.account_id
       where t.id = daemons.enrollment_token_id) as "enrolledBy"`;
  }
}
