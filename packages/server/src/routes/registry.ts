import type { Express, RequestHandler } from 'express';
import { contextOf } from '../http/context.js';
import { HttpProblem } from '../problems/problem.js';

export type Method = 'GET' | 'POST';

export interface Route {
  method: Method;
  /** An Express path, such as /api/admin/v1/organizations/:org/projects. */
  path: string;
  /** The checks (credentials, body parsing), then the handler, last. */
  handlers: RequestHandler[];
  /**
   * Reads the parsed body into what the handler takes (`inputOf`), throwing a 400 problem whose
   * issues point into the body. It runs after the checks and before the OpenAPI validator, so
   * that a bad request is told what is wrong in the route's words; the validator is the backstop.
   */
  read?: (body: unknown) => unknown;
}

/**
 * Registers routes, each as its checks, its reader, `beforeHandler` (the OpenAPI validator), and
 * its handler; and answers what is left: a known path with another method is 405 with Allow,
 * anything else 404, both as problems.
 */
export function mount(app: Express, routes: Route[], beforeHandler: (route: Route) => RequestHandler[] = () => []): void {
  for (const route of routes) {
    const { read } = route;
    const reader: RequestHandler[] = read === undefined ? [] : [(req, _res, next) => {
      contextOf(req).input = read(req.body);
      next();
    }];
    const handlers = [...route.handlers.slice(0, -1), ...reader, ...beforeHandler(route), ...route.handlers.slice(-1)];
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
