// While the database is known to be away, the API answers 503 at once instead of trying it.
import type { RequestHandler } from 'express';
import type { DatabaseHealth } from '../db/health.js';
import { HttpProblem } from '../problems/problem.js';

/** The answer while the database is unavailable: 503, try again in a second (docs/decisions.md, Database faults). */
export function unavailableProblem(): HttpProblem {
  return new HttpProblem(
    'database_unavailable',
    'The hub cannot reach its database right now; nothing was stored. Try again shortly.',
    {
      headers: { 'Retry-After': '1' },
    },
  );
}

/**
 * Answers 503 database_unavailable, at once, to requests that `needsDatabase` while `health` says
 * the database is down; everything else goes on (the problem pages, the document, liveness).
 */
export function databaseGate(health: DatabaseHealth, needsDatabase: (path: string) => boolean): RequestHandler {
  return (req, _res, next) => {
    if (health.down && needsDatabase(req.path)) next(unavailableProblem());
    else next();
  };
}

/**
 * The API paths that need the database: all under /api/ and /oauth/ but the OpenAPI document and
 * the reference. Liveness, readiness (which answers for itself), the problem pages, the OAuth
 * metadata and the dashboard (whose pages answer their own 503) are not gated.
 */
export function apiNeedsDatabase(path: string): boolean {
  return /^\/(?:api\/(?!openapi\.json$|reference(?:\/|$))|oauth\/)/.test(path);
}
