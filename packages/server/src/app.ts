import express, { type Express } from 'express';
import type { Hub } from './hub.js';
import { problemHandler, requestContext, securityHeaders } from './http/middleware.js';
import { openApiValidator } from './http/openapi-validator.js';
import { adminRoutes } from './routes/admin.js';
import { daemonProtocolRoutes } from './routes/daemon-protocol.js';
import { daemonRoutes } from './routes/daemons.js';
import { dispatchRoutes } from './routes/dispatch.js';
import { healthRoutes } from './routes/health.js';
import { publicRoutes } from './routes/public.js';
import { openApiRoutes } from './routes/openapi.js';
import { referenceRoutes } from './routes/reference.js';
import { mount, type Route } from './routes/registry.js';

export { Hub, type HubOptions } from './hub.js';

/** The hub's Express app, without a listening socket: main.ts and tests start it. */
export function createApp(hub: Hub): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.use(requestContext(hub.log));
  app.use(securityHeaders());
  // Hottest first: Express tries routes in order of registration.
  const routes = [...publicRoutes(hub), ...dispatchRoutes(hub), ...daemonProtocolRoutes(hub), ...daemonRoutes(hub), ...adminRoutes(hub), ...healthRoutes(hub), ...openApiRoutes(hub), ...referenceRoutes(hub)];
  // Requests with input (a body or a path parameter) go through the OpenAPI validator; operations
  // without any have nothing it could check, and skip it unless responses are being checked.
  const validator = openApiValidator(hub);
  const takesInput = (route: Route) => route.method === 'POST' || route.path.includes('/:');
  mount(app, routes, (route) => (takesInput(route) || hub.options.validateResponses === true ? validator : []));
  app.use(problemHandler({ problemBase: hub.options.problemBase, log: hub.log }));
  return app;
}
