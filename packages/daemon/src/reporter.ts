// Delivers execution statuses to the hub: in order for each execution, and through outages, so
// that a final status survives a hub restart.
import type { StatusReport } from '@hub/schemas';
import { Backoff, sleep, type Outage } from './backoff.js';
import { HubError, isTransient, retryAfterMs, type HubClient } from './client.js';

export class StatusReporter {
  /** The last report queued for each execution: the next one goes after it, so `running` never lands after `succeeded`. */
  private readonly queues = new Map<string, Promise<void>>();
  private readonly giveUp = new AbortController();

  constructor(
    private readonly client: HubClient,
    private readonly outage: Outage,
    private readonly log: (message: string) => void,
  ) {}

  report(executionId: string, report: StatusReport): void {
    const queued = (this.queues.get(executionId) ?? Promise.resolve()).then(() => this.deliver(executionId, report));
    this.queues.set(executionId, queued);
    void queued.then(() => {
      if (this.queues.get(executionId) === queued) this.queues.delete(executionId);
    });
  }

  /** Waits for every queued report, for at most `ms`; what is still undelivered then is logged and dropped. */
  async close(ms: number): Promise<void> {
    const timer = setTimeout(() => this.giveUp.abort(), ms);
    await Promise.all(this.queues.values());
    clearTimeout(timer);
  }

  private async deliver(executionId: string, report: StatusReport): Promise<void> {
    const backoff = new Backoff();
    for (;;) {
      try {
        await this.client.reportStatus(executionId, report, this.giveUp.signal);
        this.outage.succeeded();
        return;
      } catch (error) {
        if (this.giveUp.signal.aborted) break;
        if (error instanceof HubError && (error.status === 409 || error.status === 404)) {
          this.log(
            `Execution ${executionId}: the hub already considers it finished (${error.message}); status ${report.status} not recorded.`,
          );
          return;
        }
        if (!isTransient(error)) {
          this.log(`Execution ${executionId}: the hub refused status ${report.status} (${(error as Error).message}).`);
          return;
        }
        this.outage.failed((error as Error).message);
        await sleep(backoff.next(retryAfterMs(error)), AbortSignal.any([this.giveUp.signal, this.outage.recovered]));
        if (this.giveUp.signal.aborted) break;
      }
    }
    this.log(
      `Execution ${executionId}: gave up reporting status ${report.status}: the hub did not answer before the daemon stopped.`,
    );
  }
}
