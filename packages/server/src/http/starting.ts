// The hub's request listener from the moment it listens: until the app is ready, every request is
// answered at once (503 `not_ready`, `Retry-After: 1`), never held on a socket nobody serves.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { isUuid } from '@hub/schemas';
import { problemCatalog } from '../problems/catalog.js';

export interface Gate {
  /** For `server.on('request', …)`, before `listen`. */
  listener: RequestListener;
  /** From now on requests go to `app`. */
  open(app: RequestListener): void;
}

/** `problemBase()` is read per answer: with PORT=0 it is known only once the server listens. */
export function startingGate(problemBase: () => string): Gate {
  let app: RequestListener | undefined;
  return {
    listener: (req, res) => (app === undefined ? notReady(req, res, problemBase()) : app(req, res)),
    open: (ready) => void (app = ready),
  };
}

function notReady(req: IncomingMessage, res: ServerResponse, problemBase: string): void {
  const given = req.headers['x-request-id'];
  const requestId = typeof given === 'string' && isUuid(given) ? given.toLowerCase() : randomUUID();
  res.setHeader('X-Request-Id', requestId);
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  // The body is not read: the connection closes after the answer instead.
  res.setHeader('Connection', 'close');
  const path = req.url ?? '/';
  // Liveness: the process is up and answering (readiness, /readyz, is what says "not yet").
  if (req.method === 'GET' && /^\/healthz(?:\?|$)/.test(path)) {
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' });
    return void res.end('{"status":"ok"}');
  }
  const detail = 'The hub is starting; try again in a moment.';
  res.setHeader('Retry-After', '1');
  if (!path.startsWith('/api/') && /\btext\/html\b/.test(req.headers.accept ?? '')) {
    // A browser tab opened while the hub starts: a page that loads again by itself (no script).
    res.writeHead(503, {
      'Content-Type': 'text/html; charset=utf-8',
      Refresh: '1',
      'Content-Security-Policy': "default-src 'none'",
    });
    res.end(
      `<!doctype html><html lang="en"><meta charset="utf-8"><title>Hub is starting</title><p>${detail} This page reloads by itself.</p></html>\n`,
    );
    return;
  }
  const { title, status } = problemCatalog.not_ready;
  res.writeHead(status, { 'Content-Type': 'application/problem+json' });
  res.end(
    JSON.stringify({ type: `${problemBase}/problems/not_ready`, title, status, detail, code: 'not_ready', requestId }),
  );
}
