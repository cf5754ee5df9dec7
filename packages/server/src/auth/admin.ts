import { timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { HttpProblem } from '../problems/problem.js';
import { bearer } from './api-key.js';
import { digest } from './secrets.js';
import type { Throttle } from './throttle.js';

const unauthorized = (headers: Record<string, string> = {}) =>
  new HttpProblem('unauthorized', "Send the hub's admin token as Authorization: Bearer <HUB_ADMIN_TOKEN>.", {
    headers: { 'WWW-Authenticate': 'Bearer realm="hub-admin"', ...headers },
  });

/**
 * The operator API answers only to HUB_ADMIN_TOKEN, compared in constant time. With a
 * `throttle`, a wrong token counts against the client's address (a missing one does not).
 */
export function requireAdmin(adminToken: string, throttle?: Throttle): RequestHandler {
  const expected = digest(adminToken);
  return async (req, _res, next) => {
    const token = bearer(req.get('authorization'));
    if (token === undefined) throw unauthorized();
    if (!timingSafeEqual(digest(token), expected)) throw unauthorized(await throttle?.failedAuthentication(req));
    next();
  };
}
