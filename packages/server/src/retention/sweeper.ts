import type { ExecutionRepository } from '../runs/index.js';
import { databaseUnavailable, type DatabaseHealth } from '../db/health.js';
import type { RetentionRepository } from './policy.js';
import type { Logger } from '../http/logger.js';

/** Retention's passes (retention/policy.ts): how often, and with what. */
export interface RetentionSchedule {
  repository: RetentionRepository;
  everyMs: number;
}

/**
 * Sweeps for what no daemon will report (lost and timed-out executions) every `everyMs`, on
 * every instance: the sweep's statements are safe to run concurrently, so no instance leads.
 * Retention, when given and enabled, runs on a clock of its own, so that a long pass (the first
 * after a large history) never holds up the sweep. While the database is away both skip their
 * turns, saying so once, and say when they run again.
 */
export function startSweeper(
  executions: ExecutionRepository,
  log: Logger,
  everyMs: number,
  health?: DatabaseHealth,
  retention?: RetentionSchedule,
): { close(): Promise<void> } {
  let closing = false;
  const sweep = repeat(log, everyMs, health, 'sweep', async () => {
    const swept = await executions.sweep();
    if (swept.lost > 0 || swept.timedOut > 0) log.info('runs swept', swept);
  });
  const prune =
    retention?.repository.enabled === true
      ? repeat(log, retention.everyMs, health, 'retention', async () => {
          const began = performance.now();
          const pruned = await retention.repository.prune(() => closing);
          if (Object.values(pruned).some((count) => count > 0))
            log.info('history pruned', { ...pruned, ms: Math.round(performance.now() - began) });
        })
      : undefined;
  return {
    async close() {
      closing = true;
      await Promise.all([sweep.close(), prune?.close()]);
    },
  };
}

/** Runs `task` every `everyMs`, never two at once, skipping turns while the database is away. */
function repeat(
  log: Logger,
  everyMs: number,
  health: DatabaseHealth | undefined,
  name: string,
  task: () => Promise<void>,
): { close(): Promise<void> } {
  let running: Promise<void> | undefined;
  let waiting = false;
  const timer = setInterval(() => {
    if (running !== undefined || health?.down === true) return;
    running = task()
      .then(
        () => {
          if (waiting) log.info(`${name}: running again: the database answers`);
          waiting = false;
        },
        (error: unknown) => {
          const message = error instanceof Error ? error.message : String(error);
          if (!databaseUnavailable(error)) return log.error(`${name} failed`, { error: message });
          health?.report(error);
          if (!waiting)
            log.warn(`${name} skipped: the database is unavailable; running again once it answers`, { error: message });
          waiting = true;
        },
      )
      .finally(() => (running = undefined));
  }, everyMs);
  timer.unref();
  return {
    async close() {
      clearInterval(timer);
      await running;
    },
  };
}
