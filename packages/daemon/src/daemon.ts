// The daemon's main loop: heartbeats, long polls for assignments and cancellations, the
// executions it runs and their output, and saying so to the hub when it stops.
import type { Writable } from 'node:stream';
import type { Assignment, StatusReport } from '@hub/schemas';
import { MalformedAssignment } from './assignment.js';
import { Backoff, Outage, sleep } from './backoff.js';
import { HubError, retryAfterMs, type HubClient, type PollAnswer } from './client.js';
import { runtimesOf, type DaemonConfig } from './config.js';
import type { DaemonMetrics } from './metrics.js';
import { OutputShipper, type OutputLimits } from './output.js';
import { StatusReporter } from './reporter.js';
import { runExecution } from './supervisor.js';

const HEARTBEAT_MS = 10_000;
/** The hub's long poll allows up to 30 s; 25 stays clear of proxies that cut idle requests at 30. */
const POLL_WAIT_S = 25;
/** A long poll that comes back empty sooner than this did not wait. */
const EMPTY_AT_ONCE_MS = 1_000;
/** How long a stopping daemon keeps trying to deliver the last statuses. */
const SHUTDOWN_REPORT_MS = 10_000;
/** Execution ids remembered after they finish, to ignore a redelivery of one (delivery is at least once). */
const REMEMBERED = 1_000;
/** The last word to the hub is short: a daemon that cannot say it stops is offline after its heartbeats stop anyway. */
const OFFLINE_TIMEOUT_MS = 5_000;

export interface DaemonOptions {
  client: HubClient;
  config: DaemonConfig;
  /** Named in the message for an assignment whose provider the config lacks. */
  configFile: string;
  /** Aborted (with a string reason) to stop: running executions are cancelled and reported. */
  signal: AbortSignal;
  log: (message: string) => void;
  /** The agents' environment and where their output goes (see ExecutionOptions). */
  env?: NodeJS.ProcessEnv;
  output?: Writable;
  /** How the agents' output is batched and bounded on its way to the hub; DEFAULT_OUTPUT_LIMITS by default. */
  outputLimits?: OutputLimits;
  /** Counts the assignments taken and the executions finished (the client counts its own requests). */
  metrics?: DaemonMetrics;
}

/** Runs until `signal` aborts (`refused` undefined) or the hub refuses this daemon's identity with 401. */
export async function runDaemon(options: DaemonOptions): Promise<{ refused?: HubError }> {
  return new Daemon(options).run();
}

class Daemon {
  private readonly stopping = new AbortController();
  private readonly outage: Outage;
  private readonly reporter: StatusReporter;
  private readonly running = new Map<string, { cancel: AbortController; done: Promise<void> }>();
  /** Output on its way to the hub, including some of executions already reported (see OutputShipper.finish). */
  private readonly shipping = new Set<OutputShipper>();
  private readonly finished = new Set<string>();
  private refused: HubError | undefined;
  /** Ends a long poll made without capacity, once a slot is free, so that the next one can take an assignment. */
  private slotFreed: () => void = () => {};

  constructor(private readonly options: DaemonOptions) {
    this.outage = new Outage(options.log);
    this.reporter = new StatusReporter(options.client, this.outage, options.log);
  }

  async run(): Promise<{ refused?: HubError }> {
    const { signal } = this.options;
    const onSignal = () => this.stop(typeof signal.reason === 'string' ? signal.reason : 'the daemon stopped');
    signal.addEventListener('abort', onSignal, { once: true });
    if (signal.aborted) onSignal();
    const heartbeats = this.heartbeats();
    await this.poll();
    const reason = this.stopping.signal.reason as string;
    for (const { cancel } of this.running.values()) cancel.abort(`Cancelled: ${reason}.`);
    await Promise.all([...this.running.values()].map(({ done }) => done));
    await this.reporter.close(SHUTDOWN_REPORT_MS);
    for (const shipper of this.shipping) shipper.stop();
    await heartbeats;
    // After the last of its requests: any signed request would bring it back online.
    if (this.refused === undefined) await this.sayOffline();
    signal.removeEventListener('abort', onSignal);
    return this.refused === undefined ? {} : { refused: this.refused };
  }

  private stop(reason: string): void {
    if (this.stopping.signal.aborted) return;
    this.options.log(`Stopping: ${reason}.`);
    this.stopping.abort(reason);
  }

  private async sayOffline(): Promise<void> {
    try {
      await this.options.client.offline(OFFLINE_TIMEOUT_MS);
      this.options.log('Told the hub that this daemon is offline.');
    } catch (error) {
      this.options.log(
        `Could not tell the hub that this daemon is offline (${(error as Error).message}); it counts as offline once it misses its heartbeats.`,
      );
    }
  }

  /** A 401 ends the daemon: the hub no longer accepts this identity, and nothing it does would count. */
  private failed(error: unknown): void {
    if (error instanceof HubError && error.status === 401) {
      this.refused = error;
      this.stop("the hub refused this daemon's identity");
    } else {
      this.outage.failed((error as Error).message);
    }
  }

  private async heartbeats(): Promise<void> {
    const runtimes = runtimesOf(this.options.config);
    let connected = false;
    while (!this.stopping.signal.aborted) {
      try {
        await this.options.client.heartbeat(runtimes, this.stopping.signal);
        this.outage.succeeded();
        if (!connected) this.options.log('Connected; waiting for assignments.');
        connected = true;
      } catch (error) {
        if (this.stopping.signal.aborted) break;
        this.failed(error);
      }
      await sleep(HEARTBEAT_MS, this.stopping.signal);
    }
  }

  /** Long polls: with capacity 1 while a slot is free, else with 0, which hears only cancellations. */
  private async poll(): Promise<void> {
    const backoff = new Backoff();
    while (!this.stopping.signal.aborted) {
      const capacity = this.running.size < this.options.config.concurrency ? 1 : 0;
      const freed = new AbortController();
      this.slotFreed = capacity === 0 ? () => freed.abort() : () => {};
      let answer: PollAnswer;
      const asked = Date.now();
      try {
        answer = await this.options.client.nextAssignment(
          POLL_WAIT_S,
          capacity,
          AbortSignal.any([this.stopping.signal, freed.signal]),
        );
        this.outage.succeeded();
      } catch (error) {
        if (this.stopping.signal.aborted) break;
        if (freed.signal.aborted) continue;
        if (error instanceof MalformedAssignment) {
          // Taken, and reported, so that the hub does not offer it again and again.
          this.options.metrics?.taken();
          void this.settle(error.executionId, {
            status: 'failed',
            message: `The daemon could not read the assignment: ${error.message}.`,
          });
          continue;
        }
        this.failed(error);
        // Another request (a heartbeat, a status) that gets through ends the wait: new work is taken at once.
        await sleep(backoff.next(retryAfterMs(error)), AbortSignal.any([this.stopping.signal, this.outage.recovered]));
        continue;
      }
      if (answer.cancel !== undefined) {
        backoff.reset();
        this.cancel(answer.cancel);
      } else if (answer.assignment !== undefined) {
        backoff.reset();
        this.start(answer.assignment);
      } else if (Date.now() - asked < EMPTY_AT_ONCE_MS) {
        // Nothing, at once: a stopping hub (its Retry-After: the next poll goes, through a load
        // balancer, to another instance), or a proxy that cuts the wait. Asking again at once would spin.
        await sleep(backoff.next(answer.retryAfterMs ?? 0), this.stopping.signal);
      } else {
        backoff.reset();
      }
    }
  }

  /** The hub's cancellations: each execution running here is stopped and reported cancelled; others are not this daemon's concern. */
  private cancel(executionIds: string[]): void {
    for (const executionId of executionIds) {
      const execution = this.running.get(executionId);
      if (execution === undefined || execution.cancel.signal.aborted) continue;
      this.options.log(`Execution ${executionId}: cancelled at the hub; stopping it.`);
      execution.cancel.abort('Cancelled at the hub.');
    }
  }

  private start(assignment: Assignment): void {
    const { executionId, agent } = assignment;
    if (this.running.has(executionId) || this.finished.has(executionId)) {
      this.options.log(
        `Execution ${executionId} was offered again; it already ran or runs here, so the offer is ignored.`,
      );
      return;
    }
    this.options.metrics?.taken();
    const provider = this.options.config.providers.get(agent.provider);
    if (provider === undefined) {
      const known = [...this.options.config.providers.keys()].join(', ');
      void this.settle(executionId, {
        status: 'failed',
        message: `This daemon has no command for the agent provider "${agent.provider}": its config (${this.options.configFile}) has ${known}.`,
      });
      return;
    }
    this.options.log(
      `Execution ${executionId}: ${agent.provider} in ${assignment.cwd} (run ${assignment.triggerRunId}, step ${assignment.stepId}).`,
    );
    const cancel = new AbortController();
    const shipper = new OutputShipper(
      this.options.client,
      executionId,
      this.outage,
      this.options.log,
      this.options.outputLimits,
    );
    this.shipping.add(shipper);
    void shipper.sent.then(() => this.shipping.delete(shipper));
    const done = runExecution(assignment, provider, {
      signal: cancel.signal,
      env: this.options.env,
      output: this.options.output,
      onOutput: (stream, data) => shipper.write(stream, data),
      onStatus: (report) => {
        if (report.status === 'running') this.reporter.report(executionId, report);
      },
    }).then(async (report) => {
      // The output first: a reader following it sees all of it before the final status.
      await this.settle(executionId, report, shipper.finish());
      this.running.delete(executionId);
      this.slotFreed();
    });
    this.running.set(executionId, { cancel, done });
  }

  /** Logs a final status and reports it once `before` is done; remembers the execution, so that a redelivery is not run again. */
  private async settle(executionId: string, report: StatusReport, before?: Promise<void>): Promise<void> {
    this.finished.add(executionId);
    this.options.metrics?.finished(report.status);
    if (this.finished.size > REMEMBERED) this.finished.delete(this.finished.values().next().value as string);
    const detail = report.message === undefined ? '' : `: ${report.message}`;
    this.options.log(`Execution ${executionId}: ${report.status.replace('_', ' ')}${detail}`);
    await before;
    this.reporter.report(executionId, report);
  }
}
