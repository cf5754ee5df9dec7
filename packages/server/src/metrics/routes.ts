import { timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { Sql } from 'postgres';
import { contextOf } from '../http/context.js';
import type { DatabaseHealth } from '../db/health.js';
import {
  collectProcessMetrics,
  daemonsOnline,
  databaseUp,
  httpDuration,
  httpRequests,
  registry,
  webhooksPending,
} from './registry.js';

export interface MetricsOptions {
  sql: Sql;
  /** HUB_METRICS_TOKEN: required as a bearer when set; unset, loopback clients only. */
  token?: string;
  offlineAfterMs: number;
  health?: DatabaseHealth;
}

/**
 * `GET /metrics` (DECISIONS.md, Metrics): the Prometheus text format. With HUB_METRICS_TOKEN set,
 * that token as a bearer (401 otherwise); unset, loopback clients only (403 otherwise; behind a
 * proxy that HUB_TRUST_PROXY trusts, the client is the one the proxy names). Not an API operation:
 * it is mounted beside the dashboard, outside the OpenAPI document.
 */
export function metricsRoute(options: MetricsOptions): RequestHandler {
  collectProcessMetrics();
  return async (req, res, next) => {
    if (req.path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      next();
      return;
    }
    contextOf(req).operationId = 'metrics';
    res.setHeader('Cache-Control', 'no-store');
    if (options.token !== undefined ? !bearerIs(req, options.token) : !loopback(req.ip)) {
      const status = options.token !== undefined ? 401 : 403;
      if (status === 401) res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
      res
        .status(status)
        .type('text/plain')
        .send(
          status === 401
            ? 'Send the metrics token (HUB_METRICS_TOKEN) as a bearer.\n'
            : 'Metrics answer loopback clients only; set HUB_METRICS_TOKEN to scrape from elsewhere.\n',
        );
      return;
    }
    databaseUp.set(options.health?.down === true ? 0 : 1);
    try {
      const [row] = await options.sql<{ online: number; pending: number }[]>`
        select (select count(*)::int from daemons
            where retired_at is null and last_seen_at > now() - ${options.offlineAfterMs} * interval '1 millisecond') as online,
          (select count(*)::int from webhook_deliveries where status = 'pending') as pending`;
      daemonsOnline.set(row?.online ?? 0);
      webhooksPending.set(row?.pending ?? 0);
    } catch {
      databaseUp.set(0);
    }
    countAnswersSoFar();
    res.type(registry.contentType).send(await registry.metrics());
  };
}

/** Answers kept per operation and status before they are handed to prom-client (and at each scrape). */
const BATCH = 512;

interface Answers {
  requests: { inc(by: number): void };
  duration: { observe(seconds: number): void };
  seconds: Float64Array;
  count: number;
}

const answered = new Map<string, Answers>();

function handOver(answers: Answers): void {
  if (answers.count === 0) return;
  answers.requests.inc(answers.count);
  for (let i = 0; i < answers.count; i++) answers.duration.observe(answers.seconds[i] as number);
  answers.count = 0;
}

/** Hands every answer kept so far to prom-client: called right before a scrape reads the registry. */
function countAnswersSoFar(): void {
  for (const answers of answered.values()) handOver(answers);
}

/**
 * Counts each answer by operation and status, and times it (given to `requestContext`, which owns
 * the clock and the `finish` listener). An answer costs a map lookup and a store: answers are kept
 * per operation and status (both from a bounded set: the document's operationIds and HTTP codes)
 * and handed to prom-client in batches, and before each scrape, so that /metrics misses none.
 */
export function countAnswer(req: Request, res: Response, seconds: number): void {
  const operation = contextOf(req).operationId ?? (req.path.startsWith('/api/') ? 'unmatched' : 'page');
  const key = `${operation} ${res.statusCode}`;
  let answers = answered.get(key);
  if (answers === undefined) {
    answers = {
      requests: httpRequests.labels(operation, String(res.statusCode)),
      duration: httpDuration.labels(operation),
      seconds: new Float64Array(BATCH),
      count: 0,
    };
    answered.set(key, answers);
  }
  answers.seconds[answers.count++] = seconds;
  if (answers.count === BATCH) handOver(answers);
}

function bearerIs(req: Request, token: string): boolean {
  const sent = /^Bearer (.+)$/i.exec(req.get('authorization') ?? '')?.[1] ?? '';
  const a = Buffer.from(sent);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function loopback(address: string | undefined): boolean {
  if (address === undefined) return false;
  return address === '::1' || /^127\./.test(address) || /^::ffff:127\./.test(address);
}
