import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { setContext } from './context.js';
import type { Logger } from './logger.js';
import { isUuid } from '@hub/schemas';

/** Told of each answer once it is sent, with the seconds it took from the request (metrics/routes.ts). */
export type AnswerObserver = (req: Request, res: Response, seconds: number) => void;

/**
 * X-Request-Id on every response: the client's if it sent a UUID, else a new one; one log line per
 * request; and `observe` told of each answer. One clock and one `finish` listener serve both.
 */
export function requestContext(log: Logger, observe?: AnswerObserver): RequestHandler {
  return (req, res, next) => {
    const given = req.get('x-request-id');
    const requestId = given !== undefined && isUuid(given) ? given.toLowerCase() : randomUUID();
    setContext(req, { requestId });
    res.setHeader('X-Request-Id', requestId);
    const logged = log.enabled('info');
    if (!logged && observe === undefined) {
      next();
      return;
    }
    const started = performance.now();
    res.on('finish', () => {
      const ms = performance.now() - started;
      observe?.(req, res, ms / 1000);
      if (logged)
        log.info('request', { requestId, method: req.method, path: loggedPath(req.path), status: res.statusCode, ms });
    });
    next();
  };
}

/**
 * Paths that carry a secret (an invitation link's token, a setup token) as logged: the secret
 * replaced by `[redacted]`. Queries are never logged (the setup link's token, a device user code).
 */
const SECRET_PATHS = /^(\/+(?:invitations|setup)\/).+/is;

/** The request's path as the log may keep it: no secret of a link. */
export function loggedPath(path: string): string {
  return path.replace(SECRET_PATHS, '$1[redacted]');
}

/** Security headers on every response; API answers are never cached. */
export function securityHeaders(): RequestHandler {
  return (req, res, next) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
    res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
    if (!req.path.startsWith('/api/reference')) {
      res.setHeader('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'");
    }
    if (req.path.startsWith('/api/')) res.setHeader('Cache-Control', 'no-store');
    next();
  };
}
