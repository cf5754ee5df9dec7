import type { ExecutionRepository } from '../db/executions.js';
import { databaseUnavailable, type DatabaseHealth } from '../db/health.js';
import type { Logger } from '../http/logger.js';

/**
 * Sweeps for what no daemon will report (lost and timed-out executions) every `everyMs`, on
 * every instance: the sweep's statements are safe to run concurrently, so no instance leads.
 * While the database is away it skips its turns, saying so once, and says when it sweeps again.
 */
export function startSweeper(executions: ExecutionRepository, log: Logger, everyMs: number, health?: DatabaseHealth): { close(): Promise<void> } {
  let running: Promise<void> | undefined;
  let waiting = false;
  const timer = setInterval(() => {
    if (running !== undefined || health?.down === true) return;
    running = executions
      .sweep()
      .then(
        (swept) => {
          if (waiting) log.info('sweeping again: the database answers');
          waiting = false;
          if (swept.lost > 0 || swept.timedOut > 0) log.info('runs swept', swept);
        },
        (error: unknown) => {
          const message = error instanceof Error ? error.message : String(error);
          if (!databaseUnavailable(error)) return log.error('sweep failed', { error: message });
          health?.report(error);
          if (!waiting) log.warn('sweep skipped: the database is unavailable; sweeping again once it answers', { error: message });
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
