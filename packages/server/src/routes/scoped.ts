import type { RequestHandler } from 'express';
import { requireScope, type Prefetch, type Scope } from '../auth/api-key.js';
import type { Hub } from '../hub.js';
import { jsonBody } from '../http/middleware.js';
import type { Method, Route } from './registry.js';

/**
 * A public route: the key checked for `scope` (reading `prefetch` in the same statement), then
 * (for POST) the JSON body, then `handler`.
 */
export function scoped(hub: Hub, method: Method, path: string, scope: Scope, handler: RequestHandler, prefetch?: Prefetch): Route {
  const checks: RequestHandler[] = [requireScope(hub.authSql, scope, prefetch)];
  if (method === 'POST') checks.push(jsonBody(hub.options.maxBodyBytes));
  return { method, path, handlers: [...checks, handler] };
}
