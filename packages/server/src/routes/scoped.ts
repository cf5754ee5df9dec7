import type { RequestHandler } from 'express';
import { requireScope, type Prefetch, type Scope } from '../auth/api-key.js';
import type { Hub } from '../hub.js';
import { jsonBody } from '../http/middleware.js';
import type { Method, Route } from './registry.js';

/**
 * A public route: the key checked for `scope` (reading `prefetch` in the same statement), then
 * (for POST) the JSON body and its reader `read`, then `handler`.
 */
export function scoped(
  hub: Hub,
  method: Method,
  path: string,
  scope: Scope,
  handler: RequestHandler,
  options: { prefetch?: Prefetch; read?: Route['read'] } = {},
): Route {
  const checks: RequestHandler[] = [requireScope(hub.authSql, scope, options.prefetch)];
  if (method === 'POST') checks.push(jsonBody(hub.options.maxBodyBytes));
  return { method, path, handlers: [...checks, handler], read: options.read };
}
