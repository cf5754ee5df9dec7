import type { RequestHandler } from 'express';
import { requireScope, type Prefetch, type Scope } from '../auth/api-key.js';
import type { Hub } from '../hub.js';
import { contextOf } from '../http/context.js';
import { jsonBody } from '../http/middleware.js';
import type { Method, Route } from './registry.js';

/**
 * A public route: the key checked for `scope` (reading `prefetch` in the same statement), then
 * (for POST) the JSON body and its reader `read`, then `handler`. With `bodyFirst` (a byte
 * limit), the body is parsed before the key check, so that `prefetch` can use it; a refused body
 * is answered only once the key has passed, keeping 401 and 403 ahead of 400.
 */
export function scoped(
  hub: Hub,
  method: Method,
  path: string,
  scope: Scope,
  handler: RequestHandler,
  options: { prefetch?: Prefetch; read?: Route['read']; bodyFirst?: number } = {},
): Route {
  const key = requireScope(hub.authSql, scope, options.prefetch);
  let checks: RequestHandler[];
  if (options.bodyFirst !== undefined) checks = [deferErrors(jsonBody(options.bodyFirst)), key, raiseDeferred];
  else if (method === 'POST') checks = [key, jsonBody(hub.options.maxBodyBytes)];
  else checks = [key];
  return { method, path, handlers: [...checks, handler], read: options.read };
}

/** Runs `check`, keeping its refusal in the request context for `raiseDeferred` to answer. */
function deferErrors(check: RequestHandler): RequestHandler {
  return (req, res, next) => {
    void check(req, res, (error?: unknown) => {
      if (error !== undefined) {
        contextOf(req).bodyError = error;
        req.body = undefined;
      }
      next();
    });
  };
}

/** After the key check has passed: a refused body's problem is the answer (401 and 403 came first). */
const raiseDeferred: RequestHandler = (req, _res, next) => next(contextOf(req).bodyError);
