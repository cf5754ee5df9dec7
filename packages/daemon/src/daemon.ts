// The daemon's main loop: heartbeats, long polls for assignments, and the executions it runs.
import type { Writable } from 'node:stream';
import type { Assignment, StatusReport } from '@hub/schemas';
import { MalformedAssignment } from './assignment.js';
import { Backoff, Outage, sleep } from './backoff.js';
import { HubError, type HubClient } from './client.js';
import { runtimesOf, type DaemonConfig } from './config.js';
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
  private readonly finished = new Set<string>();
  private refused: HubError | undefined;
  private wake: () => void = () => {};

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
    await heartbeats;
    signal.removeEventListener('abort', onSignal);
    return this.refused === undefined ? {} : { refused: this.refused };
  }

  private stop(reason: string): void {
    if (this.stopping.signal.aborted) return;
    this.options.log(`Stopping: ${reason}.`);
    this.stopping.abort(reason);
    this.wake();
  }

  /** A 401 ends the daemon: the hub no longer accepts this identity, and nothing it does would count. */
  private failed(error: unknown): void {
    if (error instanceof HubError && error.status === 401) {
      this.refused = error;
      this.stop('the hub refused this daemon\'s identity');
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

  private async poll(): Promise<void> {
    const backoff = new Backoff();
    while (!this.stopping.signal.aborted) {
      if (this.running.size >= this.options.config.concurrency) {
        await new Promise<void>((resolve) => (this.wake = resolve));
        continue;
      }
      let assignment: Assignment | undefined;
      const asked = Date.now();
      try {
        assignment = await this.options.client.nextAssignment(POLL_WAIT_S, this.stopping.signal);
        this.outage.succeeded();
      } catch (error) {
        if (this.stopping.signal.aborted) break;
        if (error instanceof MalformedAssignment) {
          // Reported, so that the hub does not offer it again and again.
          this.settle(error.executionId, { status: 'failed', message: `The daemon could not read the assignment: ${error.message}.` });
          continue;
        }
        this.failed(error);
        await sleep(backoff.next(), this.stopping.signal);
        continue;
      }
      if (assignment !== undefined) {
        backoff.reset();
        this.start(assignment);
      } else if (Date.now() - asked < EMPTY_AT_ONCE_MS) {
        // Nothing, at once: a stopping hub, or a proxy that cuts the wait. Asking again at once would spin.
        await sleep(backoff.next(), this.stopping.signal);
      } else {
        backoff.reset();
      }
    }
  }

  private start(assignment: Assignment): void {
    const { executionId, agent } = assignment;
    if (this.running.has(executionId) || this.finished.has(executionId)) {
      this.options.log(`Execution ${executionId} was offered again; it already ran or runs here, so the offer is ignored.`);
      return;
    }
    const provider = this.options.config.providers.get(agent.provider);
    if (provider === undefined) {
      const known = [...this.options.config.providers.keys()].join(', ');
      this.settle(executionId, {
        status: 'failed',
        message: `This daemon has no command for the agent provider "${agent.provider}": its config (${this.options.configFile}) has ${known}.`,
      });
      return;
    }
    this.options.log(`Execution ${executionId}: ${agent.provider} in ${assignment.cwd} (run ${assignment.triggerRunId}, step ${assignment.stepId}).`);
    const cancel = new AbortController();
    const done = runExecution(assignment, provider, {
      signal: cancel.signal,
      env: this.options.env,
      output: this.options.output,
      onStatus: (report) => {
        if (report.status === 'running') this.reporter.report(executionId, report);
      },
    }).then((report) => {
      this.running.delete(executionId);
      this.settle(executionId, report);
      this.wake();
    });
    this.running.set(executionId, { cancel, done });
  }

  /** Reports a final status and remembers the execution, so that a redelivery is not run again. */
  private settle(executionId: string, report: StatusReport): void {
    this.finished.add(executionId);
    if (this.finished.size > REMEMBERED) this.finished.delete(this.finished.values().next().value as string);
    const detail = report.message === undefined ? '' : `: ${report.message}`;
    this.options.log(`Execution ${executionId}: ${report.status.replace('_', ' ')}${detail}`);
    this.reporter.report(executionId, report);
  }
}
