// Stopping the HTTP server without waiting on idle keep-alive connections: Node's server.close()
// waits for every connection to close, and a client's idle keep-alive socket stays open for
// seconds after its last answer.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Logger } from './logger.js';

export interface Drain {
  /** From now on each answer closes its connection (clients reconnect, through a load balancer, elsewhere); still accepting. */
  closeEach(): void;
  /** Stops accepting connections; from now on each answer closes its connection, and idle ones close. */
  stopAccepting(): void;
  /** Resolves once every connection has closed: requests in flight answered, or cut after `graceMs`. */
  drained(graceMs: number, onCut: (inFlight: number) => void): Promise<void>;
}

/** Call before the app's request listener is added: it must see each request first. */
export function drainable(server: Server): Drain {
  const inFlight = new Set<ServerResponse>();
  let closed: Promise<unknown> | undefined;
  let closing = false;
  server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
    // Answers given while stopping close their connection, so clients do not reuse it.
    if (closed !== undefined || closing) res.setHeader('connection', 'close');
    inFlight.add(res);
    res.on('close', () => {
      inFlight.delete(res);
      // A stream whose headers went out before the stop leaves its connection idle once it ends.
      if (closed !== undefined) setImmediate(() => server.closeIdleConnections());
    });
  });
  const stopAccepting = () => {
    if (closed !== undefined) return closed;
    for (const res of inFlight) if (!res.headersSent) res.setHeader('connection', 'close');
    closed = new Promise((resolveClose) => server.close(resolveClose));
    server.closeIdleConnections();
    return closed;
  };
  return {
    // Idle connections are left open: closing one races a request a proxy is sending on it (it
    // would see the connection close with its request unanswered); each closes after its next answer.
    closeEach: () => {
      closing = true;
      for (const res of inFlight) if (!res.headersSent) res.setHeader('connection', 'close');
    },
    stopAccepting: () => void stopAccepting(),
    drained: async (graceMs, onCut) => {
      const timer = setTimeout(() => {
        onCut(inFlight.size);
        server.closeAllConnections();
      }, graceMs);
      await stopAccepting();
      clearTimeout(timer);
    },
  };
}

/**
 * On SIGTERM, before the hub stops: for `seconds`, /readyz answers 503 so that a load balancer
 * moves traffic away, while everything else is still served (each answer closing its
 * connection); long-polls answer at once (Retry-After) and streams end, so that their clients
 * come back through the balancer to another instance. Nothing when `seconds` is 0.
 */
export async function drainBeforeStop(
  seconds: number,
  parts: { hub: { draining: boolean }; drain: Drain; waits: { drain(): void }[]; log: Logger },
): Promise<void> {
  if (seconds === 0) return;
  parts.hub.draining = true;
  parts.drain.closeEach();
  for (const waits of parts.waits) waits.drain();
  parts.log.info('draining: /readyz answers 503; serving until the drain ends', { seconds });
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
}
