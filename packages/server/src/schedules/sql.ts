import type { CompiledConfiguration } from '@hub/compiler';
import type { Db } from '../db/connect.js';

/** Sent (delivered at commit) when a project's schedule changes: every scheduler looks at once. */
export const SCHEDULE_CHANNEL = 'hub_schedules';

/** A schedule entry waiting for its tick, with what firing it needs. */
export interface DueEntry {
  id: string;
  organizationId: string;
  projectId: string;
  projectActive: boolean;
  revisionId: string;
  revisionActive: boolean;
  triggerName: string;
  cron: string;
  timezone: string;
  input: string;
  nextFireAt: Date;
}

/** The schedule entries of projects' active configuration revisions, by their next tick. */
export class ScheduleRepository {
  constructor(private readonly sql: Db) {}

  /**
   * Makes the project's schedule the one of `revisionId` (just installed, in the caller's
   * transaction): the entries of the revision before are deleted, and the new revision's entries
   * of enabled triggers are written without a tick, which the schedulers compute at once (NOTIFY).
   */
  async replace(organizationId: string, projectId: string, revisionId: string): Promise<void> {
    await this.sql`delete from schedule_entries where project_id = ${projectId}`;
    const [made] = await this.sql<{ count: number }[]>`
      with made as (
        insert into schedule_entries (organization_id, project_id, configuration_revision_id, trigger_name, entry_index, cron, timezone, input)
        select ${organizationId}, ${projectId}, r.id, t ->> 'name', (entry.n - 1)::int, entry.value ->> 'cron',
          coalesce(entry.value ->> 'timezone', 'UTC'), coalesce(entry.value ->> 'input', '')
        from configuration_revisions r
        cross join jsonb_array_elements(r.model -> 'triggers') as t
        cross join jsonb_array_elements(t -> 'events') as e
        cross join jsonb_array_elements(e -> 'entries') with ordinality as entry (value, n)
        where r.id = ${revisionId} and e ->> 'kind' = 'schedule' and (t ->> 'enabled')::boolean
        returning 1
      )
      select count(*)::int as count from made`;
    if ((made?.count ?? 0) > 0) await this.sql`select pg_notify(${SCHEDULE_CHANNEL}, ${projectId})`;
  }

  /** Entries still without a tick (installed since the last look), a batch at a time. */
  async unscheduled(limit: number): Promise<{ id: string; cron: string; timezone: string }[]> {
    return this
      .sql`select id, cron, timezone from schedule_entries where next_fire_at is null order by id limit ${limit}`;
  }

  /**
   * Entries' next ticks, in one statement: after the ones just fired or skipped (`advance`), or
   * their first (`first`: an entry another scheduler has set meanwhile keeps its own).
   */
  async setTicks(ticks: { id: string; next: Date | 'infinity' }[], kind: 'first' | 'advance'): Promise<void> {
    if (ticks.length === 0) return;
    const ids = ticks.map((tick) => tick.id);
    const nexts = ticks.map((tick) => (tick.next === 'infinity' ? 'infinity' : tick.next.toISOString()));
    await this.sql`
      update schedule_entries e set next_fire_at = t.next
      from unnest(${ids}::uuid[], ${nexts}::timestamptz[]) as t (id, next)
      where e.id = t.id ${kind === 'first' ? this.sql`and e.next_fire_at is null` : this.sql``}`;
  }

  /** The earliest tick of any entry: the schedulers sleep until then (read by schedule_entries_due). */
  async earliest(): Promise<Date | undefined> {
    const [row] = await this.sql<{ at: Date | null }[]>`
      select min(next_fire_at) as at from schedule_entries where next_fire_at is not null and next_fire_at < 'infinity'`;
    return row?.at ?? undefined;
  }

  /**
   * Due entries (tick at or before `now`), locked until the caller's transaction ends; entries
   * another scheduler holds are skipped, so that instances share a minute's work and none fires
   * an entry's tick that another is firing.
   */
  async claimDue(now: Date, limit: number): Promise<DueEntry[]> {
    return this.sql<DueEntry[]>`
      select e.id, e.organization_id as "organizationId", e.project_id as "projectId", p.active as "projectActive",
        e.configuration_revision_id as "revisionId", r.active as "revisionActive", e.trigger_name as "triggerName",
        e.cron, e.timezone, e.input, e.next_fire_at as "nextFireAt"
      from schedule_entries e
      join projects p on p.id = e.project_id
      join configuration_revisions r on r.id = e.configuration_revision_id
      where e.next_fire_at <= ${now}
      order by e.next_fire_at
      limit ${limit}
      for update of e skip locked`;
  }

  /** A revision's compiled model: what its entries' runs are planned from (revisions never change). */
  async model(revisionId: string): Promise<CompiledConfiguration | undefined> {
    const [row] = await this.sql<{ model: CompiledConfiguration }[]>`
      select model from configuration_revisions where id = ${revisionId}`;
    return row?.model;
  }
}
