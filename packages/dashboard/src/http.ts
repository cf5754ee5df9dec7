import express from 'express';
import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';
import { clearedSessionCookie, readCookie, SESSION_COOKIE } from './cookies.js';
import { messagePage } from './pages/index.js';
import type { MessagePageProps } from './pages/index.js';
import { PAGE_HEADERS, sameOrigin } from './security.js';
import type { DashboardStore, Membership, SessionView } from './store.js';

export interface DashboardLog {
  warn(message: string, fields?: object): void;
  error?(message: string, fields?: object): void;
}

export interface DashboardOptions {
  store: DashboardStore;
  /** The hub's public URL: its origin is the only one whose forms are accepted; https makes the cookie Secure. */
  publicUrl: string;
  log?: DashboardLog | undefined;
  /** The scopes an API key can hold, as the hub's API defines them: the checkboxes of a new key. */
  scopes: readonly string[];
  /** Whether an error thrown by the store means the database is away: a 503 page then, not the server's 500. */
  unavailable?: ((error: unknown) => boolean) | undefined;
}

/** The largest form the dashboard reads: its forms hold a few short fields. */
const FORM_LIMIT_BYTES = 64 * 1024;
/** Fields of a form at most (the parser's default, said here so that the page can say it). */
const FORM_FIELDS = 1000;
const parseForm = express.urlencoded({ extended: false, limit: FORM_LIMIT_BYTES, parameterLimit: FORM_FIELDS });

/** The 413 page says the limits, so that a person knows how much to take out. */
function formTooLarge(res: Response): void {
  sendMessage(res, 413, {
    title: 'Form too large',
    message: `The hub reads forms of at most ${FORM_LIMIT_BYTES / 1024} KiB (and ${FORM_FIELDS.toLocaleString('en-US')} fields), and this one is larger, so nothing was changed. Go back and shorten what you typed.`,
  });
}

/**
 * Form bodies, parsed on the POST routes only, after the origin check. A body announced larger
 * than the limit, or of unknown length (browsers always announce a form's), is refused with a 413
 * page before any of it is read: the parser would read all of it before answering.
 */
export const formBody: RequestHandler = (req, res, next) => {
  const length = req.headers['content-length'];
  if (
    req.headers['transfer-encoding'] !== undefined ||
    (length !== undefined && !(Number(length) <= FORM_LIMIT_BYTES))
  ) {
    formTooLarge(res);
    return;
  }
  // The parser's own refusals (more fields than FORM_FIELDS) are the same page, not an API problem.
  parseForm(req, res, (error?: unknown) => {
    if ((error as { status?: unknown } | undefined)?.status === 413) formTooLarge(res);
    else next(error);
  });
};

/** An HTML answer (a page from pages/) with the dashboard's headers. */
export function sendPage(res: Response, status: number, html: string): void {
  res.status(status).set(PAGE_HEADERS).send(html);
}

export function sendMessage(res: Response, status: number, props: MessagePageProps): void {
  sendPage(res, status, messagePage(props));
}

/** Last on the router: a page whose database is away is a 503 page with Retry-After; other errors go on to the server's handler. */
export function unavailablePage(options: DashboardOptions): ErrorRequestHandler {
  return (error: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent || options.unavailable?.(error) !== true) return next(error);
    res.set('Retry-After', '1');
    sendMessage(res, 503, {
      title: 'Unavailable for a moment',
      message: 'The hub cannot reach its database right now, so nothing was changed. Try again in a moment.',
    });
  };
}

/** A redirect after a form (or to sign in): 303, so the browser follows with GET. */
export function seeOther(res: Response, location: string): void {
  res.status(303).set('Cache-Control', 'no-store').location(location).end();
}

/** Refuses, with 403, a POST whose Origin (or Referer) is not the hub's own. */
export function refuseCrossSite(options: DashboardOptions): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if (sameOrigin({ origin: req.get('origin'), referer: req.get('referer') }, options.publicUrl)) return next();
    // The route's pattern, never the path: some carry a secret (/invitations/<token>).
    const route = typeof req.route?.path === 'string' ? req.route.path : null;
    options.log?.warn('dashboard: cross-site form refused', { route, origin: req.get('origin') ?? null });
    sendMessage(res, 403, {
      title: 'Request refused',
      message:
        'This form was not sent from the hub’s own pages, so the hub did not act on it. Open the page again and resend the form.',
      link: { href: '/', text: 'Go to the dashboard' },
    });
  };
}

/** The session secret in the request's cookie. An `Authorization` header is never read here. */
export function sessionSecret(req: Request): string | undefined {
  return readCookie(req.get('cookie'), SESSION_COOKIE) || undefined;
}

/** The address throttling counts against; `trust proxy` on the server's app decides what req.ip is. */
export function clientAddress(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? '';
}

export interface Signed {
  secret: string;
  session: SessionView;
}

export async function currentSession(store: DashboardStore, req: Request): Promise<Signed | undefined> {
  const secret = sessionSecret(req);
  if (secret === undefined) return undefined;
  const session = await store.session(secret);
  return session ? { secret, session } : undefined;
}

/**
 * The signed-in session, or undefined after redirecting to sign in (forgetting a stale cookie);
 * with `next`, signing in comes back to that path.
 */
export async function requireSession(
  options: DashboardOptions,
  req: Request,
  res: Response,
  next?: string,
): Promise<Signed | undefined> {
  const signed = await currentSession(options.store, req);
  if (signed) return signed;
  if (sessionSecret(req) !== undefined) res.append('Set-Cookie', clearedSessionCookie(options.publicUrl));
  seeOther(res, next === undefined ? '/sign-in' : `/sign-in?next=${encodeURIComponent(next)}`);
  return undefined;
}

/** The current organization when the caller owns it; otherwise 403 and undefined. */
export function requireOwner(res: Response, session: SessionView): Membership | undefined {
  if (session.current?.role === 'owner') return session.current;
  sendForbidden(res, session);
  return undefined;
}

export function sendForbidden(res: Response, session: SessionView): void {
  sendMessage(res, 403, {
    title: 'Owners only',
    message: 'Only owners of the organization manage its API keys.',
    link: { href: '/keys', text: 'Back to API keys' },
    session,
  });
}
