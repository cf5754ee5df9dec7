// The hub's Prometheus metrics (DECISIONS.md, Metrics): one registry per process. No label carries
// an organization, a key, a project or any text a client sent: operations are the document's
// operationIds, statuses are numbers, sources and run statuses are the hub's own words.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export const registry = new Registry();

let collecting = false;

/**
 * Node's process metrics, from the first call on (metrics/routes.ts, when /metrics is mounted: with
 * HUB_METRICS=off nothing watches the event loop or the GC), without the gauges whose names end in
 * `_total` (promtool reads those as counters and flags them; DECISIONS.md): left out, not renamed.
 */
export function collectProcessMetrics(): void {
  if (collecting) return;
  collecting = true;
  collectDefaultMetrics({ register: registry, prefix: 'hub_' });
  for (const name of [
    'hub_nodejs_active_resources_total',
    'hub_nodejs_active_handles_total',
    'hub_nodejs_active_requests_total',
  ])
    registry.removeSingleMetric(name);
}

export const httpRequests = new Counter({
  name: 'hub_http_requests_total',
  help: 'HTTP requests answered, by operation (the OpenAPI operationId; page for the dashboard, metrics, unmatched) and status code.',
  labelNames: ['operation', 'status'] as const,
  registers: [registry],
});

export const httpDuration = new Histogram({
  name: 'hub_http_request_duration_seconds',
  help: 'Time from a request to the end of its answer, by operation.',
  labelNames: ['operation'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

export const runsStarted = new Counter({
  name: 'hub_runs_started_total',
  help: 'Runs started on a daemon by this instance, by source (manual, schedule, github).',
  labelNames: ['source'] as const,
  registers: [registry],
});

export const runsCompleted = new Counter({
  name: 'hub_runs_completed_total',
  help: 'Runs ended by this instance, by final status (succeeded, failed, cancelled, timed_out).',
  labelNames: ['status'] as const,
  registers: [registry],
});

export const scheduleTicks = new Counter({
  name: 'hub_schedule_ticks_total',
  help: 'Schedule ticks this instance handled, by result (started, failed: recorded as a failed run, skipped: missed while no hub ran).',
  labelNames: ['result'] as const,
  registers: [registry],
});

export const dispatchToAssignment = new Histogram({
  name: 'hub_dispatch_to_assignment_seconds',
  help: "Time from an execution's creation to the first time a daemon took its assignment (database clock).",
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  registers: [registry],
});

/** Set at each scrape by the caller (metrics/routes.ts): values read from PostgreSQL or the health monitor. */
export const databaseUp = new Gauge({
  name: 'hub_database_up',
  help: '1 when this instance reaches its database, 0 while it is known to be down.',
  registers: [registry],
});

export const daemonsOnline = new Gauge({
  name: 'hub_daemons_online',
  help: 'Enrolled daemons seen within the offline window, across the hub.',
  registers: [registry],
});

/** Run statuses and sources are the hub's own words; anything else is counted as `other`, never as sent. */
const SOURCES = new Set(['manual', 'schedule', 'github']);
const STATUSES = new Set(['succeeded', 'failed', 'cancelled', 'timed_out']);
export const countStarted = (source: string, count = 1) =>
  runsStarted.inc({ source: SOURCES.has(source) ? source : 'other' }, count);
export const countCompleted = (status: string, count = 1) =>
  runsCompleted.inc({ status: STATUSES.has(status) ? status : 'other' }, count);

export const webhookDeliveries = new Counter({
  name: 'hub_webhook_deliveries_total',
  help: 'Webhook delivery attempts this instance made, by result (delivered; retrying: failed, tried again later; failed: the last retry failed).',
  labelNames: ['result'] as const,
  registers: [registry],
});

/** Set at each scrape by the caller (metrics/routes.ts), from PostgreSQL: across the hub. */
export const webhooksPending = new Gauge({
  name: 'hub_webhook_deliveries_pending',
  help: 'Webhook deliveries not yet delivered nor failed, across the hub.',
  registers: [registry],
});

export const countDelivery = (result: 'delivered' | 'retrying' | 'failed') => webhookDeliveries.inc({ result });
