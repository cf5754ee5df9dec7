// A person who meets a missing page or a fault on the dashboard gets a page in its layout, not a
// problem document: for paths outside the machine's (the API, OAuth, served schemas and problems,
// health), when the request prefers HTML to JSON. A client that asks for JSON (or anything, as
// curl does) keeps the server's problem document.
import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';
import { currentSession, sendMessage, type DashboardOptions } from './http.js';

/** Paths whose answers are the API's, whatever the client prefers. */
const MACHINE = /^\/(?:api|oauth|schemas|problems|\.well-known)(?:\/|$)|^\/(?:healthz|readyz)$/;

/** Whether the request is a person's, for a page: a dashboard path, HTML preferred to JSON. */
export function wantsPage(req: Request): boolean {
  return !MACHINE.test(req.path) && req.accepts(['json', 'html']) === 'html';
}

/** The session, when one can be read: a page about a fault must not fail on the fault. */
async function sessionOf(options: DashboardOptions, req: Request) {
  try {
    return (await currentSession(options.store, req))?.session;
  } catch {
    return undefined;
  }
}

/** Last but one on the router: a path the dashboard does not have, as a 404 page. */
export function notFoundPage(options: DashboardOptions): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    if (!wantsPage(req)) return next();
    const session = await sessionOf(options, req);
    sendMessage(res, 404, {
      title: 'Page not found',
      message: `The hub has no page at ${req.path}. Check the address, or start again from the dashboard.`,
      link: { href: '/', text: 'Go to the dashboard' },
      session,
    });
  };
}

/** Last on the router: a page's own failure as a 500 page naming the request id (the log has the rest). */
export function faultPage(options: DashboardOptions): ErrorRequestHandler {
  return async (error: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent || !wantsPage(req)) return next(error);
    const status = (error as { status?: unknown } | null)?.status;
    // The parser's and Express's own refusals (a malformed form) keep their answers.
    if (typeof status === 'number' && status < 500) return next(error);
    const requestId = String(res.getHeader('X-Request-Id') ?? '');
    options.log?.error?.('dashboard page failed', {
      requestId,
      error: error instanceof Error ? `${error.name}: ${error.message}\n${error.stack ?? ''}` : String(error),
    });
    const session = await sessionOf(options, req);
    sendMessage(res, 500, {
      title: 'Something went wrong',
      message: `The hub could not show this page. Try again; if it persists, give the hub's operator the request id ${requestId}.`,
      link: { href: '/', text: 'Go to the dashboard' },
      session,
    });
  };
}
