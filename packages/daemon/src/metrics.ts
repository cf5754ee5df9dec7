// The daemon's own Prometheus metrics (`hub daemon run --metrics-port`): what it took and finished,
// the output it sent, its round trips to the hub, and Node's process metrics. Every label value is
// one of the daemon's own words; nothing comes from an assignment, a prompt or the hub's answers.
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The daemon's requests to the hub, as the round-trip histogram names them. */
export type RequestKind = 'heartbeat' | 'next_assignment' | 'status' | 'output' | 'offline';
const KINDS: RequestKind[] = ['heartbeat', 'next_assignment', 'status', 'output', 'offline'];
/** How an execution ended here (the final statuses a daemon reports). */
export type Outcome = 'succeeded' | 'failed' | 'timed_out' | 'cancelled';
const OUTCOMES: Outcome[] = ['succeeded', 'failed', 'timed_out', 'cancelled'];

export const PREFIX = 'hub_daemon_';

/** One daemon's metrics, in a registry of their own (a process may run more than one daemon: tests). */
export class DaemonMetrics {
  readonly registry = new Registry();
  private readonly assignments: Counter;
  private readonly executions: Counter<'outcome'>;
  private readonly outputBytes: Counter;
  private readonly roundTrips: Histogram<'kind'>;

  /** `processMetrics`: Node's own (CPU, memory, event loop, GC) beside the daemon's; true unless false. */
  constructor(options: { processMetrics?: boolean } = {}) {
    const registers = [this.registry];
    this.assignments = new Counter({
      name: `${PREFIX}assignments_taken_total`,
      help: 'Assignments this daemon took from the hub (an offer again of one it already has or had is not counted).',
      registers,
    });
    this.executions = new Counter({
      name: `${PREFIX}executions_total`,
      help: 'Executions this daemon finished, by outcome (succeeded, failed, timed_out, cancelled).',
      labelNames: ['outcome'] as const,
      registers,
    });
    this.outputBytes = new Counter({
      name: `${PREFIX}output_bytes_sent_total`,
      help: "Bytes (UTF-8) of the agents' output that the hub took.",
      registers,
    });
    this.roundTrips = new Histogram({
      name: `${PREFIX}hub_request_duration_seconds`,
      help: 'Round trips of requests the hub answered (any status), by kind (heartbeat, next_assignment, status, output, offline); a long poll includes its wait (up to 25 s).',
      labelNames: ['kind'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60],
      registers,
    });
    // Every series from the start, at zero: a rate over the first scrapes is then a rate.
    for (const outcome of OUTCOMES) this.executions.inc({ outcome }, 0);
    for (const kind of KINDS) this.roundTrips.zero({ kind });
    if (options.processMetrics !== false) {
      collectDefaultMetrics({ register: this.registry, prefix: PREFIX });
      // Gauges whose names end in _total, which promtool reads as counters and flags: left out.
      for (const name of ['active_resources_total', 'active_handles_total', 'active_requests_total'])
        this.registry.removeSingleMetric(`${PREFIX}nodejs_${name}`);
    }
  }

  taken(): void {
    this.assignments.inc();
  }

  finished(outcome: string): void {
    if ((OUTCOMES as string[]).includes(outcome)) this.executions.inc({ outcome });
  }

  sent(bytes: number): void {
    this.outputBytes.inc(bytes);
  }

  roundTrip(kind: RequestKind, seconds: number): void {
    this.roundTrips.observe({ kind }, seconds);
  }

  /** The text format, and its content type. */
  async text(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
