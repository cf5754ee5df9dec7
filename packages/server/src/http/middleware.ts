import { randomUUID } from 'node:crypto';
import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';
import express from 'express';
import { databaseUnavailable, lostDatabase, unavailableProblem, type DatabaseHealth } from '../db/health.js';
import { HttpProblem, toProblem } from '../problems/problem.js';
import { contextOf, setContext } from './context.js';
import type { Logger } from './logger.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** X-Request-Id on every response: the client's if it sent a UUID, else a new one; and one log line per request. */
export function requestContext(log: Logger): RequestHandler {
  return (req, res, next) => {
    const given = req.get('x-request-id');
    const requestId = given !== undefined && UUID.test(given) ? given.toLowerCase() : randomUUID();
    setContext(req, { requestId });
    res.setHeader('X-Request-Id', requestId);
    if (!log.enabled('info')) {
      next();
      return;
    }
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      log.info('request', {
        requestId,
        method: req.method,
        path: req.path,
        status: res.statusCode,
        ms: Number(process.hrtime.bigint() - started) / 1e6,
      });
    });
    next();
  };
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

/** The path of shape A's dispatch, whose 400 and actor-403 bodies are the specification's own. */
export const SHAPE_A_DISPATCH = '/api/manual-runs';

/** application/json, with parameters: the one media type the OpenAPI document declares. */
export function isJsonType(type: string | undefined): boolean {
  return type !== undefined && /^application\/json\s*(?:;|$)/i.test(type);
}

export const notJson = () => new HttpProblem('unsupported_media_type', 'Send the body as JSON, with Content-Type: application/json.');
export const tooLarge = () => new HttpProblem('payload_too_large', 'The body is larger than the largest request the hub accepts.');
export const invalidJson = () =>
  new HttpProblem('invalid_request', 'The body is not valid JSON.', {
    issues: [{ pointer: '', code: 'request.json', message: 'The body is not valid JSON.' }],
  });

/**
 * Parses a JSON body after authentication (401 and 403 come before 400). A body that is not
 * JSON, or is larger than `limit`, is a problem; a request without a body gets `undefined`.
 */
export function jsonBody(limit: number): RequestHandler {
  const parse = express.json({ limit, strict: false, type: () => true });
  return (req, res, next) => {
    const length = req.headers['content-length'];
    const hasBody = req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
    if (!hasBody) {
      req.body = undefined;
      next();
      return;
    }
    if (!isJsonType(req.headers['content-type'])) {
      next(notJson());
      return;
    }
    parse(req, res, next);
  };
}

/**
 * Parses a form-encoded body (`application/x-www-form-urlencoded`, the OAuth endpoints') into
 * its parameters, a repeated one as an array; any other body is left unread as `undefined`, for
 * the handler to refuse in its own (OAuth) terms. A body over `limit` is a 413 problem.
 */
export function formBody(limit: number): RequestHandler {
  const parse = express.urlencoded({ extended: false, limit, parameterLimit: 100, type: () => true });
  return (req, res, next) => {
    if (!/^application\/x-www-form-urlencoded\s*(?:;|$)/i.test(req.headers['content-type'] ?? '')) {
      req.body = undefined;
      next();
      return;
    }
    parse(req, res, next);
  };
}

/**
 * Renders every error as a problem document; anything unexpected is a 500 that leaks nothing. A
 * database that went away is a 503 (and news for `health`), logged once by the health, not here.
 */
export function problemHandler(options: { problemBase: string; log: Logger; health?: DatabaseHealth | undefined }): ErrorRequestHandler {
  return (error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const problem = asProblem(error);
    const { requestId } = contextOf(req);
    if (lostDatabase(error)) {
      options.health?.report(error);
      options.log.debug('request failed: database unavailable', { requestId, error: describe(error) });
    } else if (problem.code === 'database_unavailable' && !(error instanceof HttpProblem)) {
      options.log.warn('request failed: a database bound', { requestId, error: describe(error) });
    } else if (problem.status >= 500 && !(error instanceof HttpProblem && problem.status === 503)) {
      // A 503 the hub chose (not ready, busy, the database away) is an answer, not a failure.
      options.log.error('request failed', { requestId, error: describe(error) });
    }
    // A body already under way (an output stream) cannot become a problem: cut it, the client sees it end short.
    if (res.headersSent) {
      res.destroy();
      return;
    }
    for (const [name, value] of Object.entries(problem.headers)) res.setHeader(name, value);
    // Shape A's dispatch answers its 400 and its actor 403 with the specification's own bodies,
    // and titles its 401 "Unauthorized" (DECISIONS.md, One hub, both shapes).
    const shapeA = req.path === SHAPE_A_DISPATCH;
    if (shapeA && (problem.code === 'invalid_request' || problem.code === 'actor_forbidden')) {
      res.status(problem.status).json({ error: problem.code });
      return;
    }
    const body = toProblem(problem, { problemBase: options.problemBase, requestId });
    if (shapeA && problem.code === 'unauthorized') body.title = 'Unauthorized';
    res.status(problem.status).type('application/problem+json').send(JSON.stringify(body));
  };
}

function asProblem(error: unknown): HttpProblem {
  if (error instanceof HttpProblem) return error;
  if (databaseUnavailable(error)) return unavailableProblem();
  const status = (error as { status?: unknown; type?: unknown } | null)?.status;
  const type = (error as { type?: unknown } | null)?.type;
  if (status === 413 || type === 'entity.too.large') return tooLarge();
  if (type === 'entity.parse.failed') return invalidJson();
  if (type === 'charset.unsupported' || type === 'encoding.unsupported') {
    return new HttpProblem('unsupported_media_type', 'Send the body as UTF-8 JSON.');
  }
  if (typeof status === 'number' && status >= 400 && status < 500) return new HttpProblem('invalid_request', 'The request could not be read.');
  return new HttpProblem('internal_error', 'Something went wrong on the hub; the request id identifies it in the logs.');
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}\n${error.stack ?? ''}` : String(error);
}
