import express from 'express';
import type { Router } from 'express';
import { assetRoutes } from './assets.js';
import { unavailablePage, type DashboardOptions } from './http.js';
import { faultPage, notFoundPage } from './errors.js';
import { accountRoutes } from './routes/account.js';
import { keyRoutes } from './routes/keys.js';
import { invitationRoutes } from './routes/invitations.js';
import { memberRoutes } from './routes/members.js';
import { settingsRoutes } from './routes/settings.js';
import { projectRoutes } from './routes/projects.js';
import { daemonRoutes } from './routes/daemons.js';
import { runRoutes } from './routes/runs.js';
import { auditRoutes } from './routes/audit.js';
import { deviceRoutes } from './routes/device.js';
import { githubRoutes } from './routes/github.js';
import { webhookRoutes } from './routes/webhooks.js';

/**
 * The dashboard's pages, for the server to mount at `/` after its API routes and before its 404.
 * Pages need the `hub_session` cookie; an `Authorization` header opens none of them.
 */
export function dashboardRouter(options: DashboardOptions): Router {
  const router = express.Router();
  assetRoutes(router);
  accountRoutes(router, options);
  keyRoutes(router, options);
  memberRoutes(router, options);
  invitationRoutes(router, options);
  settingsRoutes(router, options);
  projectRoutes(router, options);
  daemonRoutes(router, options);
  runRoutes(router, options);
  auditRoutes(router, options);
  deviceRoutes(router, options);
  githubRoutes(router, options);
  webhookRoutes(router, options);
  router.use(notFoundPage(options));
  router.use(unavailablePage(options));
  router.use(faultPage(options));
  return router;
}
