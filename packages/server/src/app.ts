import { dashboardRouter } from '@hub/dashboard';
import express, { type Express } from 'express';
import { dashboardStore } from './dashboard/store.js';
import { SCOPES } from './auth/api-key.js';
import { databaseUnavailable } from './db/health.js';
import { apiNeedsDatabase, databaseGate } from './http/database-gate.js';
import type { Hub } from './hub.js';
import { mountFallback, mountOperations } from './http/mount.js';
import { closeUnreadBody } from './http/body.js';
import { requestContext, securityHeaders } from './http/middleware.js';
import { problemHandler } from './http/problem-handler.js';
import { documentText, type Node } from './openapi/contract.js';
import { ContractValidator } from './openapi/validator.js';
import { auditHandlers } from './audit/index.js';
import { configurationHandlers } from './configurations/index.js';
import { credentialHandlers, operatorKeyHandlers } from './keys/index.js';
import { daemonHandlers } from './daemons/index.js';
import { operationHandlers } from './openapi/routes.js';
import { oauthHandlers } from './logins/index.js';
import { operatorHandlers, projectHandlers } from './projects/index.js';
import { operatorLinkHandlers } from './github/link/index.js';
import { documentationHandlers } from './openapi/reference.js';
import { DEFAULT_TIMING, daemonProtocolHandlers, dispatcherOf, runHandlers, sendOutput } from './runs/index.js';
import { countAnswer, metricsRoute } from './metrics/index.js';
import { schemaHandlers } from './openapi/schemas.js';
import { triggerHandlers } from './triggers/index.js';
import { githubWebhookHandlers } from './github/index.js';
import { webhookHandlers } from './webhooks/index.js';

export { Hub, type HubOptions } from './hub.js';

/** The hub's Express app, without a listening socket: main.ts and tests start it. */
export function createApp(hub: Hub): Express {
  // The committed document's every schema compiles (openapi/check.ts, run by the suite on it).
  const document = JSON.parse(documentText) as Node;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  // Unset, req.ip is the socket's peer: throttling counts what the hub itself sees.
  if (hub.options.trustProxy !== undefined) app.set('trust proxy', hub.options.trustProxy);
  // HUB_METRICS=off: nothing counts requests, and GET /metrics is the 404 of any unknown page.
  const metrics = hub.options.metrics !== false;
  app.use(requestContext(hub.log, metrics ? countAnswer : undefined));
  app.use(securityHeaders());
  // While the database is known to be away, the API answers 503 at once instead of trying it.
  if (hub.health !== undefined) app.use(databaseGate(hub.health, apiNeedsDatabase));
  const operations = mountOperations(app, hub, document, new ContractValidator(document), {
    ...projectHandlers(hub),
    ...configurationHandlers(hub),
    ...triggerHandlers(hub),
    ...runHandlers(hub),
    ...auditHandlers(hub),
    ...credentialHandlers(hub),
    ...oauthHandlers(hub),
    ...daemonProtocolHandlers(hub),
    ...daemonHandlers(hub),
    ...operatorHandlers(hub),
    ...operatorKeyHandlers(hub),
    ...operatorLinkHandlers(hub),
    ...operationHandlers(hub),
    ...documentationHandlers(),
    ...schemaHandlers(hub),
    ...githubWebhookHandlers(hub),
    ...webhookHandlers(hub),
  });
  // What the operations did not answer (pages, and the 404 and 405 after them): a body left unread
  // when the answer starts is not read to its end, as on the operations.
  app.use(closeUnreadBody());
  if (metrics)
    app.use(
      metricsRoute({
        sql: hub.sql,
        offlineAfterMs: hub.options.timing?.offlineAfterMs ?? DEFAULT_TIMING.offlineAfterMs,
        ...(hub.options.metricsToken === undefined ? {} : { token: hub.options.metricsToken }),
        ...(hub.health === undefined ? {} : { health: hub.health }),
      }),
    );
  // The human side: pages, not API operations, so not in the document.
  app.use(
    dashboardRouter({
      store: dashboardStore(hub.sql, {
        offlineAfterMs: hub.options.timing?.offlineAfterMs,
        cliCredentials: hub.options.cliCredentials,
        serveOutput: (req, res, state, reader) => sendOutput(hub, req, res, state, reader),
        dispatcher: dispatcherOf(hub),
        github: hub.options.github,
        log: hub.log,
        webhooks: hub.options.webhooks,
      }),
      publicUrl: hub.options.publicUrl ?? hub.options.problemBase,
      scopes: SCOPES,
      log: hub.log,
      unavailable: (error) => {
        hub.health?.report(error);
        return databaseUnavailable(error);
      },
    }),
  );
  mountFallback(app, operations);
  app.use(problemHandler({ problemBase: hub.options.problemBase, log: hub.log, health: hub.health }));
  return app;
}
