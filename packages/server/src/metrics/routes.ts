import { timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
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
    res.type(registry.contentType).send(await registry.metrics());
  };
}

/**
 * Counts each answer by operation and status, and times it (mounted first). The labelled children are
 * looked up once per operation and status (both from a bounded set: the document's operationIds and
 * HTTP codes) and kept, so that a request costs two clock reads, a counter and an observation.
 */
export function countRequests(): RequestHandler {
  const counted = new Map<string, { requests: { inc(): void }; duration: { observe(seconds: number): void } }>();
  return (req, res, next) => {
    const start = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      const operation = contextOf(req).operationId ?? (req.path.startsWith('/api/') ? 'unmatched' : 'page');
      const key = `${operation} ${res.statusCode}`;
      let children = counted.get(key);
      if (children === undefined) {
        children = {
          requests: httpRequests.labels(operation, String(res.statusCode)),
          duration: httpDuration.labels(operation),
        };
        counted.set(key, children);
      }
      children.requests.inc();
      children.duration.observe(seconds);
    });
    next();
  };
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
