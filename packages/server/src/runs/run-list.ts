import type { Db } from '../db/connect.js';
import { olderThan } from '../db/keyset.js';

export interface RunListRow {
  id: string;
  trigger: string;
  projectSlug: string;
  actor: string;
  source: 'manual' | 'schedule' | 'github';
  status: 'running' | 'succeeded' | 'failed' | 'cancelled' | 'timed_out';
  createdAt: Date;
  finishedAt: Date | null;
}

/** The organization's runs, newest first, by keyset: a page goes on after the run named by its cursor. */
export class RunListRepository {
  constructor(private readonly sql: Db) {}

  /**
   * Up to `limit + 1` runs older than the run `before` (from its first when undefined), of
   * `source` only when given; the extra one tells of a next page.
   */
  async list(
    organizationId: string,
    before: string | undefined,
    limit: number,
    source?: RunListRow['source'],
  ): Promise<RunListRow[]> {
    const after = olderThan(this.sql, { table: 'trigger_runs', alias: 'r', at: 'created_at' }, organizationId, before);
    return this.sql<RunListRow[]>`
      select r.id, r.trigger_name as "trigger", p.slug as "projectSlug", r.actor, r.source, r.status,
        r.created_at as "createdAt", r.finished_at as "finishedAt"
      from trigger_runs r join projects p on p.id = r.project_id
      where r.organization_id = ${organizationId} and ${after} ${source === undefined ? this.sql`` : this.sql`and r.source = ${source}`}
      order by r.created_at desc, r.id desc
      limit ${limit + 1}`;
  }
}
