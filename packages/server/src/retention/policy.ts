import type { Sql, TransactionSql } from 'postgres';
import { KEEP_DELIVERIES_DAYS, OutboxRepository } from '../webhooks/index.js';

/**
 * How long history is kept (HUB_RETAIN_*; docs/decisions.md, Sweeps and retention). `undefined` days keep
 * forever. A revision goes only when inactive, replaced more than `revisionsDays` ago, not among
 * the newest `revisionsKept` of its project (or organization trigger), and named by no run left.
 */
export interface RetentionPolicy {
  runsDays: number | undefined;
  revisionsDays: number | undefined;
  revisionsKept: number;
}

/**
 * Runs are kept forever unless HUB_RETAIN_RUNS_DAYS says otherwise: a run holds its delivery key,
 * which DECISIONS.md (Dispatch) keeps durably, and pruning the run frees the key.
 */
export const DEFAULT_RETENTION: RetentionPolicy = { runsDays: undefined, revisionsDays: 90, revisionsKept: 10 };

/** What one pass deleted. */
export interface Pruned {
  runs: number;
  executions: number;
  outputChunks: number;
  configurationRevisions: number;
  triggerRevisions: number;
  /** Webhook events past KEEP_DELIVERIES_DAYS, with their deliveries. */
  webhookEvents: number;
}

/** Rows per statement: runs (with their executions), output chunks, revisions looked at, webhook events. */
export const RETENTION_BATCH = { runs: 200, outputChunks: 5_000, revisions: 200, webhookEvents: 500 };

/**
 * Deletes what is past its retention, in short transactions of a bounded number of rows, each
 * taking row locks only (SKIP LOCKED: rows another instance or a request holds are left for a
 * later pass), each statement planned to read by index (`byIndex`). Every instance may run it at
 * once. Audit events name what they name and have no foreign keys; API keys and accounts, which
 * they are attributed to, are never deleted here.
 */
export class RetentionRepository {
  constructor(
    private readonly sql: Sql,
    private readonly policy: RetentionPolicy,
  ) {}

  /** Always: webhook deliveries are kept 30 days whatever the policy (DECISIONS.md, Outbound webhooks). */
  get enabled(): boolean {
    return true;
  }

  /** One pass: runs first (a run holds its revision), then revisions. `stop` ends it between batches. */
  async prune(stop: () => boolean = () => false): Promise<Pruned> {
    const pruned: Pruned = {
      runs: 0,
      executions: 0,
      outputChunks: 0,
      configurationRevisions: 0,
      triggerRevisions: 0,
      webhookEvents: 0,
    };
    if (this.policy.runsDays !== undefined) {
      for (;;) {
        if (stop()) return pruned;
        const batch = await this.pruneRuns(this.policy.runsDays);
        pruned.runs += batch.runs;
        pruned.executions += batch.executions;
        pruned.outputChunks += batch.outputChunks;
        if (batch.done) break;
      }
    }
    if (this.policy.revisionsDays !== undefined) {
      pruned.configurationRevisions = await this.pruneRevisions('configuration', this.policy.revisionsDays, stop);
      pruned.triggerRevisions = await this.pruneRevisions('trigger', this.policy.revisionsDays, stop);
    }
    const outbox = new OutboxRepository(this.sql);
    for (;;) {
      if (stop()) return pruned;
      const gone = await outbox.prune(KEEP_DELIVERIES_DAYS, RETENTION_BATCH.webhookEvents);
      pruned.webhookEvents += gone;
      if (gone < RETENTION_BATCH.webhookEvents) break;
    }
    return pruned;
  }

  /**
   * Up to `RETENTION_BATCH.runs` runs finished more than `days` ago, none with an execution still
   * in flight: their output first, at most `RETENTION_BATCH.outputChunks` chunks a transaction
   * (the runs go once their output is gone), then their executions and themselves.
   */
  private async pruneRuns(
    days: number,
  ): Promise<{ runs: number; executions: number; outputChunks: number; done: boolean }> {
    return this.sql.begin(async (tx) => {
      await byIndex(tx);
      const runs = await tx<{ id: string }[]>`
        select r.id from trigger_runs r
        where r.finished_at < now() - ${days} * interval '1 day' and r.status <> 'running'
          and not exists (select 1 from executions e where e.trigger_run_id = r.id and e.status in ('spawning', 'running'))
        order by r.finished_at
        limit ${RETENTION_BATCH.runs}
        for update of r skip locked`;
      if (runs.length === 0) return { runs: 0, executions: 0, outputChunks: 0, done: true };
      const ids = runs.map((run) => run.id);
      const executions = (
        await tx<{ id: string }[]>`select id from executions where trigger_run_id = any(${ids}::uuid[])`
      ).map((row) => row.id);
      const chunks = await tx`
        delete from execution_output
        where (execution_id, seq) in (
          select execution_id, seq from execution_output where execution_id = any(${executions}::uuid[])
          limit ${RETENTION_BATCH.outputChunks})`;
      if (chunks.count === RETENTION_BATCH.outputChunks)
        return { runs: 0, executions: 0, outputChunks: chunks.count, done: false };
      const gone = await tx`delete from executions where id = any(${executions}::uuid[])`;
      const [left] = await tx<{ runs: number }[]>`
        with gone as (delete from trigger_runs where id = any(${ids}::uuid[]) returning 1) select count(*)::int as runs from gone`;
      return {
        runs: left?.runs ?? 0,
        executions: gone.count,
        outputChunks: chunks.count,
        done: runs.length < RETENTION_BATCH.runs,
      };
    });
  }

  /**
   * Walks the inactive revisions created more than `days` ago, oldest first, a page a
   * transaction, and deletes those past retention. Each page is a keyset step: the revisions kept
   * (by count, or by a run) are stepped over, not read again by the same pass.
   */
  private async pruneRevisions(kind: 'configuration' | 'trigger', days: number, stop: () => boolean): Promise<number> {
    const table = REVISION_TABLES[kind];
    const kept = this.policy.revisionsKept;
    // created_at as text: a Date would drop its microseconds, and the keyset would not move on.
    let after: { createdAt: string; id: string } | undefined;
    let deleted = 0;
    for (;;) {
      if (stop()) return deleted;
      const page = await this.sql.begin(async (tx) => {
        await byIndex(tx);
        const [revisions, owners, ownerId, runColumn] = [
          tx(table.revisions),
          tx(table.owners),
          tx(table.ownerId),
          tx(table.runColumn),
        ];
        const from =
          after === undefined
            ? tx`true`
            : tx`(r.created_at, r.id) > (${after.createdAt}::timestamptz, ${after.id}::uuid)`;
        const rows = await tx<{ id: string; createdAt: string; prunable: boolean }[]>`
          select r.id, r.created_at::text as "createdAt",
            r.version <= o.last_version - ${kept}
            and exists (select 1 from ${revisions} n
              where n.${ownerId} = r.${ownerId} and n.version > r.version and n.created_at < now() - ${days} * interval '1 day')
            and not exists (select 1 from trigger_runs t where t.${runColumn} = r.id) as prunable
          from ${revisions} r join ${owners} o on o.id = r.${ownerId}
          where not r.active and r.created_at < now() - ${days} * interval '1 day' and ${from}
          order by r.created_at, r.id
          limit ${RETENTION_BATCH.revisions}`;
        const ids = rows.filter((row) => row.prunable).map((row) => row.id);
        if (ids.length === 0) return { rows, deleted: 0 };
        // Locked and checked again: an active revision, or one a run came to name meanwhile, stays.
        const gone = await tx`
          delete from ${revisions} r
          where r.id in (select id from ${revisions} where id = any(${ids}::uuid[]) and not active for update skip locked)
            and not exists (select 1 from trigger_runs t where t.${runColumn} = r.id)`;
        return { rows, deleted: gone.count };
      });
      deleted += page.deleted;
      const last = page.rows.at(-1);
      if (last === undefined || page.rows.length < RETENTION_BATCH.revisions) return deleted;
      after = { createdAt: last.createdAt, id: last.id };
    }
  }
}

/**
 * A batch reads by index, from the few ids in hand: without statistics (autovacuum off, or taken
 * on empty tables) `= any(<200 ids>)` is estimated at the whole table, and planned as a scan of it
 * (70 ms at 200k executions, for 200 rows). Sequential and bitmap scans are left for nothing else.
 */
async function byIndex(tx: TransactionSql): Promise<void> {
  await tx`set local enable_seqscan = off`;
  await tx`set local enable_bitmapscan = off`;
}

/** A project's configuration revisions, and an organization trigger's revisions: the same walk. */
const REVISION_TABLES = {
  configuration: {
    revisions: 'configuration_revisions',
    owners: 'projects',
    ownerId: 'project_id',
    runColumn: 'configuration_revision_id',
  },
  trigger: {
    revisions: 'trigger_revisions',
    owners: 'triggers',
    ownerId: 'trigger_id',
    runColumn: 'trigger_revision_id',
  },
} as const;
