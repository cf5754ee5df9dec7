import { nextFireTimes, type CompiledConfiguration } from '@hub/compiler';
import type { Sql, TransactionSql } from 'postgres';
import type { DatabaseHealth } from '../db/health.js';
import type { Listening } from '../db/listener.js';
import { startWakeLoop } from '../db/wake-loop.js';
import { scheduleTicks } from '../metrics/index.js';
import type { Logger } from '../http/logger.js';
import { startUnattendedRun } from '../runs/index.js';
import type { Clock } from './clock.js';
import { SCHEDULE_CHANNEL, ScheduleRepository, type DueEntry } from './sql.js';
import { planTick, tickDeliveryKey, type TickPlan } from './ticks.js';

/** Entries claimed per transaction, and transactions at once: a minute's ticks are shared out. */
const BATCH = 50;
const CLAIMERS = 4;
/** Revisions' models (a revision never changes) and triggers' ids kept, at most this many of each. */
const MODELS_KEPT = 500;

export interface SchedulerOptions {
  sql: Sql;
  log: Logger;
  clock: Clock;
  timing: { offlineAfterMs: number };
  /** Wakes a daemon's long-polls once its assignment has committed. */
  wake: (daemonId: string) => void;
  health?: DatabaseHealth;
  /** Where the loop LISTENs (db/listener.ts); `sql` unless given. */
  listener?: Listening;
}

/**
 * Fires the active configurations' schedules (DECISIONS.md, Schedules), on every hub instance.
 * It sleeps until the earliest tick of any entry (one read of an index, whatever the number of
 * entries), or until an install changes a schedule (NOTIFY), then claims the due entries with
 * FOR UPDATE SKIP LOCKED: each tick is fired by the instance that holds its entry, in the
 * transaction that moves the entry to its next tick, so that it fires once across instances and
 * a crash before the commit leaves it for the next look. The run's delivery key is the tick's,
 * too: a tick fired twice would still start one run.
 */
export async function startScheduler(options: SchedulerOptions): Promise<{ close(): Promise<void> }> {
  const { sql, log, clock } = options;
  const entries = new ScheduleRepository(sql);
  const models = new Map<string, CompiledConfiguration>();
  /** A's triggerId by project and trigger name: made at install, never changed. */
  const triggerIds = new Map<string, string>();
  let closed = false;

  const modelOf = async (revisionId: string) => {
    let model = models.get(revisionId);
    if (model === undefined) {
      model = await new ScheduleRepository(sql).model(revisionId);
      if (model === undefined) throw new Error(`revision ${revisionId} of a schedule entry is gone`);
      remember(models, revisionId, model);
    }
    return model;
  };

  /** New entries' first ticks: the first after now. */
  const scheduleNew = async () => {
    for (;;) {
      const fresh = await entries.unscheduled(500);
      const now = new Date(clock.now());
      await entries.setTicks(
        fresh.map((entry) => ({
          id: entry.id,
          next: nextFireTimes(entry.cron, entry.timezone, now, 1)[0] ?? 'infinity',
        })),
        'first',
      );
      if (fresh.length < 500) return;
    }
  };

  const fireDue = async (): Promise<number> => {
    const woken: string[] = [];
    const claimed = await sql.begin(async (tx) => {
      const now = new Date(clock.now());
      const repository = new ScheduleRepository(tx);
      const due = await repository.claimDue(now, BATCH);
      const plans = due.map((entry) => ({ entry, plan: planTick(entry, entry.nextFireAt, now) }));
      // Sent together, so that postgres.js pipelines them on the transaction's connection.
      const daemons = await Promise.all([
        ...plans.map(({ entry, plan }) => fire(tx, entry, plan)),
        repository.setTicks(
          plans.map(({ entry, plan }) => ({ id: entry.id, next: plan.next })),
          'advance',
        ),
      ]);
      for (const daemon of daemons) if (typeof daemon === 'string') woken.push(daemon);
      return due.length;
    });
    for (const daemonId of woken) options.wake(daemonId);
    return claimed;
  };

  const fire = async (tx: TransactionSql, entry: DueEntry, plan: TickPlan) => {
    const where = { entry: entry.id, trigger: entry.triggerName, cron: entry.cron, timezone: entry.timezone };
    if (plan.skipped !== undefined)
      log.warn('schedule ticks missed while no hub ran were skipped', {
        ...where,
        from: plan.skipped.from.toISOString(),
        before: plan.skipped.to.toISOString(),
        firing: plan.fire?.toISOString() ?? 'none: over an hour late',
      });
    if (plan.skipped !== undefined) scheduleTicks.inc({ result: 'skipped' });
    if (plan.fire === undefined || !entry.projectActive || !entry.revisionActive) return undefined;
    const tick = plan.fire.toISOString();
    const known = `${entry.projectId}/${entry.triggerName}`;
    const started = await startUnattendedRun(tx, options.timing, {
      triggerId: triggerIds.get(known),
      organizationId: entry.organizationId,
      projectId: entry.projectId,
      revisionId: entry.revisionId,
      model: await modelOf(entry.revisionId),
      triggerName: entry.triggerName,
      source: 'schedule',
      deliveryKey: tickDeliveryKey(entry.id, plan.fire),
      actor: 'schedule',
      input: entry.input,
      event: { scheduledAt: tick, cron: entry.cron, timezone: entry.timezone },
      templateEvent: { scheduled_at: tick },
    });
    if (started.outcome === 'started') remember(triggerIds, known, started.triggerId);
    if (started.outcome === 'started' || started.outcome === 'failed') scheduleTicks.inc({ result: started.outcome });
    if (started.outcome === 'failed')
      log.warn('a scheduled run failed to start', { ...where, tick, reason: started.message });
    return started.outcome === 'started' ? started.daemonId : undefined;
  };

  const turn = async (): Promise<number> => {
    await scheduleNew();
    // Several claimers at once, each a batch at a time until nothing is due.
    await Promise.all(
      Array.from({ length: CLAIMERS }, async () => {
        while (!closed && (await fireDue()) === BATCH);
      }),
    );
    const earliest = await entries.earliest();
    // Entries still due after a turn are another instance's, held for a moment: not a spin.
    return earliest === undefined
      ? clock.longestSleepMs
      : Math.min(clock.longestSleepMs, Math.max(25, earliest.getTime() - clock.now()));
  };

  const loop = await startWakeLoop({
    sql,
    name: 'scheduler',
    channel: SCHEDULE_CHANNEL,
    listener: options.listener,
    log,
    health: options.health,
    turn,
  });
  return {
    async close() {
      closed = true;
      await loop.close();
    },
  };
}

/** Keeps `value` under `key`, forgetting the oldest entry once MODELS_KEPT are kept. */
function remember<T>(kept: Map<string, T>, key: string, value: T): void {
  if (kept.size >= MODELS_KEPT) kept.delete(kept.keys().next().value as string);
  kept.set(key, value);
}
