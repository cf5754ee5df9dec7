import type { ExecutionRepository } from '../db/executions.js';
import type { Logger } from '../http/logger.js';

/**
 * Sweeps for what no daemon will report (lost and timed-out executions) every `everyMs`, on
 * every instance: the sweep's statements are safe to run concurrently, so no instance leads.
 */
export function startSweeper(executions: ExecutionRepository, log: Logger, everyMs: number): { close(): Promise<void> } {
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    if (running !== undefined) return;
    running = executions
      .sweep()
      .then(
        (swept) => {
          if (swept.lost > 0 || swept.timedOut > 0) log.info('runs swept', swept);
        },
        (error: unknown) => log.error('sweep failed', { error: error instanceof Error ? error.message : String(error) }),
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
