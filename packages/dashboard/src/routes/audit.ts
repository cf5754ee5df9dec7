import type { Router } from 'express';
import { requireSession, sendPage } from '../http.js';
import type { DashboardOptions } from '../http.js';
import { auditPage } from '../pages/index.js';

export const EVENTS_PER_PAGE = 50;

/** The organization's events, newest first, a page at a time; owners and members alike. */
export function auditRoutes(router: Router, options: DashboardOptions): void {
  const { store } = options;

  router.get('/audit', async (req, res) => {
    const signed = await requireSession(options, req, res);
    if (!signed) return;
    const { session } = signed;
    const cursor = typeof req.query.before === 'string' && req.query.before !== '' ? req.query.before : undefined;
    const list = session.current
      ? await store.auditEvents(session.current.organizationId, { cursor, limit: EVENTS_PER_PAGE })
      : { events: [], older: undefined };
    const olderHref = list.older === undefined ? undefined : `/audit?before=${encodeURIComponent(list.older)}`;
    sendPage(res, 200, auditPage({ session, events: list.events, olderHref, paged: cursor !== undefined }));
  });
}
