import { timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { HttpProblem } from '../problems/problem.js';
import { bearer } from './api-key.js';
import { digest } from './secrets.js';

/** The operator API answers only to HUB_ADMIN_TOKEN, compared in constant time. */
export function requireAdmin(adminToken: string): RequestHandler {
  const expected = digest(adminToken);
  return (req, _res, next) => {
    const token = bearer(req.get('authorization'));
    if (token === undefined || !timingSafeEqual(digest(token), expected)) {
      throw new HttpProblem('unauthorized', 'Send the hub\'s admin token as Authorization: Bearer <HUB_ADMIN_TOKEN>.', {
        headers: { 'WWW-Authenticate': 'Bearer realm="hub-admin"' },
      });
    }
    next();
  };
}
