import type { Db } from '../db/connect.js';

export interface RunListRow {
  id: string;
  trigger: string;
  projectSlug: string;
  actor: string;
  status: 'running' | 'succeeded' | 'failed' | 'cancelled' | 'timed_out';
  createdAt: Date;
  finishedAt: Date | null;
}

/** The organization's runs, newest first, by keyset: a page goes on after the run named by its cursor. */
export class RunListRepository {
  constructor(private readonly sql: Db) {}

  /** Up to `limit + 1` runs older than the run `before` (from its first when undefined); the extra one tells of a next page. */
  async list(organizationId: string, before: string | undefined, limit: number): Promise<RunListRow[]> {
    const after =
      before === undefined
        ? this.sql`true`
        : // The cursor's run by its primary key alone (OFFSET 0 keeps the organization's condition out of that scan; see runs/run-view.ts, byId).
          this.sql`(r.created_at, r.id) < (
            select c.created_at, c.id from (select created_at, id, organization_id from trigger_runs where id = ${before} offset 0) c
            where c.organization_id = ${organizationId})`;
    return this.sql<RunListRow[]>`
      select r.id, r.trigger_name as "trigger", p.slug as "projectSlug", r.actor, r.status,
        r.created_at as "createdAt", r.finished_at as "finishedAt"
      from trigger_runs r join projects p on p.id = r.project_id
      where r.organization_id = ${organizationId} and ${after}
      order by r.created_at desc, r.id desc
      limit ${limit + 1}`;
  }
}
