import type { Request, Response, Router } from 'express';
import { currentSession, formBody, refuseCrossSite, requireSession, seeOther, sendMessage, sendPage } from '../http.js';
import type { DashboardOptions, Signed } from '../http.js';
import { cancelRunPage, runPage, runsPage } from '../pages/index.js';
import { RUN_SOURCES, type OutputTail, type RunDetail } from '../ports/runs.js';
import type { SessionView } from '../store.js';

export const RUNS_PER_PAGE = 50;
/** The end of each execution's output that the run's page carries; the whole is a link away. */
export const OUTPUT_TAIL_BYTES = 64 * 1024;

/**
 * The organization's runs, newest first, a page at a time; each run with its executions, their
 * output (live while they run) and, while it runs, a Cancel. Any member may cancel, as a key with
 * runs:dispatch may.
 */
export function runRoutes(router: Router, options: DashboardOptions): void {
  const { store } = options;
  const post = [refuseCrossSite(options), formBody];

  router.get('/runs', async (req, res) => {
    const signed = await requireSession(options, req, res);
    if (!signed) return;
    const { session } = signed;
    const cursor = typeof req.query.before === 'string' && req.query.before !== '' ? req.query.before : undefined;
    // An unknown source shows every run, as the filter's "All" does.
    const source = RUN_SOURCES.find((each) => each === req.query.source);
    const list = session.current
      ? await store.runs(session.current.organizationId, { cursor, limit: RUNS_PER_PAGE, source })
      : { runs: [], older: undefined };
    const olderHref =
      list.older === undefined
        ? undefined
        : `/runs?${new URLSearchParams({ ...(source === undefined ? {} : { source }), before: list.older })}`;
    sendPage(res, 200, runsPage({ session, runs: list.runs, olderHref, paged: cursor !== undefined, source }));
  });

  /** The run of the signed-in person's organization, or undefined once an answer was sent (sign in, 404). */
  const runOf = async (req: Request, res: Response): Promise<{ signed: Signed; run: RunDetail } | undefined> => {
    const signed = await requireSession(options, req, res, req.originalUrl);
    if (!signed) return undefined;
    const { session } = signed;
    const run = session.current ? await store.run(session.current.organizationId, String(req.params.id)) : undefined;
    if (run) return { signed, run };
    noSuchRun(res, session);
    return undefined;
  };

  router.get('/runs/:id', async (req, res) => {
    const found = await runOf(req, res);
    if (!found) return;
    const { signed, run } = found;
    const organizationId = signed.session.current?.organizationId as string;
    const tails = new Map<string, OutputTail>();
    for (const execution of run.executions) {
      const tail = await store.outputTail(organizationId, run.id, execution.id, OUTPUT_TAIL_BYTES);
      if (tail) tails.set(execution.id, tail);
    }
    const githubReport = run.source === 'github' ? await store.githubReport(organizationId, run.id) : undefined;
    sendPage(res, 200, runPage({ session: signed.session, run, tails, githubReport }));
  });

  // An execution's output: the whole as text, or (Accept: text/event-stream) the live stream the
  // run's page reads, as `hub logs --follow` reads the API's; it ends once the session does.
  router.get('/runs/:id/executions/:executionId/output', async (req, res) => {
    const live = /\btext\/event-stream\b/i.test(req.get('accept') ?? '');
    const signed = live ? await currentSession(store, req) : await requireSession(options, req, res, req.originalUrl);
    if (!signed) {
      if (live) res.status(401).set('Cache-Control', 'no-store').type('text/plain').send('Sign in again.\n');
      return;
    }
    const organizationId = signed.session.current?.organizationId;
    const after = Number(req.query.after);
    const sent =
      organizationId !== undefined &&
      (await store.sendOutput(organizationId, String(req.params.id), String(req.params.executionId), req, res, {
        after: Number.isInteger(after) && after >= -1 ? after : undefined,
        ended: async () => {
          const now = await store.session(signed.secret);
          if (now === undefined) return 'session_ended';
          return now.organizations.some((one) => one.organizationId === organizationId)
            ? undefined
            : 'left_organization';
        },
      }));
    if (sent) return;
    if (live) res.status(404).set('Cache-Control', 'no-store').type('text/plain').send('No such execution.\n');
    else noSuchRun(res, signed.session);
  });

  router.get('/runs/:id/cancel', async (req, res) => {
    const found = await runOf(req, res);
    if (!found) return;
    const { signed, run } = found;
    if (run.status !== 'running') return alreadyEnded(res, signed.session, run.id, run.status);
    sendPage(res, 200, cancelRunPage({ session: signed.session, run }));
  });

  router.post('/runs/:id/cancel', ...post, async (req, res) => {
    const signed = await requireSession(options, req, res);
    if (!signed) return;
    const { session } = signed;
    const runId = String(req.params.id);
    const outcome = session.current
      ? await store.cancelRun(session.account.id, session.current.organizationId, runId)
      : 'not_found';
    if (outcome === 'not_found') return noSuchRun(res, session);
    if (outcome !== 'cancelled') return alreadyEnded(res, session, runId, outcome.finished);
    seeOther(res, `/runs/${encodeURIComponent(runId)}`);
  });
}

function noSuchRun(res: Response, session: SessionView): void {
  sendMessage(res, 404, {
    title: 'No such run',
    message: 'The organization has no run of this id.',
    link: { href: '/runs', text: 'Back to runs' },
    session,
  });
}

function alreadyEnded(res: Response, session: SessionView, runId: string, status: string): void {
  sendMessage(res, 409, {
    title: 'The run has already ended',
    message: `The run ended (${status.replace('_', ' ')}) before it could be cancelled: there is nothing left to stop.`,
    link: { href: `/runs/${encodeURIComponent(runId)}`, text: 'Back to the run' },
    session,
  });
}
