import type { ErrorRequestHandler, NextFunction, Request, Response } from 'express';
import { databaseUnavailable, lostDatabase, type DatabaseHealth } from '../db/health.js';
import { HttpProblem, toProblem } from '../problems/problem.js';
import { invalidJson, tooLarge } from './body.js';
import { contextOf } from './context.js';
import { unavailableProblem } from './database-gate.js';
import type { Logger } from './logger.js';

/** The path of shape A's dispatch, whose 400 and actor-403 bodies are the specification's own. */
export const SHAPE_A_DISPATCH = '/api/manual-runs';

/**
 * Renders every error as a problem document; anything unexpected is a 500 that leaks nothing. A
 * database that went away is a 503 (and news for `health`), logged once by the health, not here.
 */
export function problemHandler(options: {
  problemBase: string;
  log: Logger;
  health?: DatabaseHealth | undefined;
}): ErrorRequestHandler {
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
  // body-parser's errors carry the limit they enforced.
  if (status === 413 || type === 'entity.too.large') return tooLarge(limitOf(error));
  if (type === 'entity.parse.failed') return invalidJson();
  if (type === 'charset.unsupported' || type === 'encoding.unsupported') {
    return new HttpProblem('unsupported_media_type', 'Send the body as UTF-8 JSON.');
  }
  if (typeof status === 'number' && status >= 400 && status < 500)
    return new HttpProblem('invalid_request', 'The request could not be read.');
  return new HttpProblem(
    'internal_error',
    'Something went wrong on the hub; the request id identifies it in the logs.',
  );
}

function limitOf(error: unknown): number | undefined {
  const limit = (error as { limit?: unknown } | null)?.limit;
  return typeof limit === 'number' && Number.isSafeInteger(limit) && limit > 0 ? limit : undefined;
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}\n${error.stack ?? ''}` : String(error);
}
