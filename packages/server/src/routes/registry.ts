import type { Express, RequestHandler } from 'express';
import { HttpProblem } from '../problems/problem.js';

export type Method = 'GET' | 'POST';

export interface Route {
  method: Method;
  /** An Express path, such as /api/admin/v1/organizations/:org/projects. */
  path: string;
  handlers: RequestHandler[];
}

/**
 * Registers routes, with `beforeHandler` between each route's checks and its handler, and answers what is left: a known path with another method is 405 with
 * Allow, anything else 404, both as problems.
 */
export function mount(app: Express, routes: Route[], beforeHandler: RequestHandler[] = []): void {
  for (const route of routes) {
    // The checks that need the parsed request go right before the route's own handler.
    const handlers = [...route.handlers.slice(0, -1), ...beforeHandler, ...route.handlers.slice(-1)];
    app[route.method === 'GET' ? 'get' : 'post'](route.path, ...handlers);
  }
  const patterns = routes.map((route) => ({
    method: route.method,
    regex: new RegExp(`^${route.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z]+/g, '[^/]+')}/?$`),
  }));
  app.use((req, _res, next) => {
    const allowed = [...new Set(patterns.filter((pattern) => pattern.regex.test(req.path)).map((pattern) => pattern.method))];
    if (allowed.length > 0) {
      next(new HttpProblem('method_not_allowed', `${req.method} is not allowed here; use ${allowed.join(' or ')}.`, { headers: { Allow: allowed.join(', ') } }));
      return;
    }
    next(new HttpProblem('not_found', `Nothing is at ${req.method} ${req.path}.`));
  });
}
