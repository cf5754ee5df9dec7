import type { Router } from 'express';
import { requireSession, sendMessage, sendPage } from '../http.js';
import type { DashboardOptions } from '../http.js';
import { runPage, runsPage } from '../pages/index.js';

export const RUNS_PER_PAGE = 50;

/** The organization's runs, newest first, a page at a time, and each run with its executions. */
export function runRoutes(router: Router, options: DashboardOptions): void {
  const { store } = options;

  router.get('/runs', async (req, res) => {
    const signed = await requireSession(options, req, res);
    if (!signed) return;
    const { session } = signed;
    const cursor = typeof req.query.before === 'string' && req.query.before !== '' ? req.query.before : undefined;
    const list = session.current
      ? await store.runs(session.current.organizationId, { cursor, limit: RUNS_PER_PAGE })
      : { runs: [], older: undefined };
    const olderHref = list.older === undefined ? undefined : `/runs?before=${encodeURIComponent(list.older)}`;
    sendPage(res, 200, runsPage({ session, runs: list.runs, olderHref, paged: cursor !== undefined }));
  });

  router.get('/runs/:id', async (req, res) => {
    const signed = await requireSession(options, req, res);
    if (!signed) return;
    const { session } = signed;
    const run = session.current ? await store.run(session.current.organizationId, String(req.params.id)) : undefined;
    if (!run) {
      return sendMessage(res, 404, {
        title: 'No such run',
        message: 'The organization has no run of this id.',
        link: { href: '/runs', text: 'Back to runs' },
        session,
      });
    }
    sendPage(res, 200, runPage({ session, run }));
  });
}
