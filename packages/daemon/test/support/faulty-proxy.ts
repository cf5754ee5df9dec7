// An HTTP proxy in front of a real hub that fails on purpose: it refuses requests (the
// connection is cut before the hub sees them), drops answers (the hub did the work, the daemon
// never hears of it), delays answers, or answers a request itself. Everything that passes is
// logged in order, so that tests can check what the daemon sent and when, relative to each other.
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Fault =
  | { kind: 'none' }
  | { kind: 'refuse' }
  | { kind: 'drop-answer' }
  | { kind: 'delay'; ms: number }
  | { kind: 'answer'; status: number; body: unknown };

export interface Exchange {
  method: string;
  path: string;
  body: Buffer;
  /** What became of it: the hub's status when answered, else why not. */
  outcome?: number | 'refused' | 'dropped' | 'injected';
}

/** In order: a request as it arrived, and its outcome as it was settled. */
export type ProxyEvent = { kind: 'request' | 'outcome'; exchange: Exchange };

export interface FaultyProxy {
  origin: string;
  exchanges: Exchange[];
  events: ProxyEvent[];
  /** How each request fares; the default lets everything through. */
  fault: (request: { method: string; path: string }) => Fault;
  /** The most requests that were under way at once for one path. */
  mostAtOnce(path: string): number;
  close(): Promise<void>;
}

const FORWARDED = ['content-type', 'hub-daemon', 'hub-timestamp', 'hub-nonce', 'hub-signature'];

export async function faultyProxy(target: string): Promise<FaultyProxy> {
  const underWay = new Map<string, number>();
  const most = new Map<string, number>();
  const proxy: FaultyProxy = {
    origin: '',
    exchanges: [],
    events: [],
    fault: () => ({ kind: 'none' }),
    mostAtOnce: (path) => most.get(path) ?? 0,
    close: async () => {},
  };
  const settle = (exchange: Exchange, outcome: Exchange['outcome']) => {
    exchange.outcome = outcome;
    proxy.events.push({ kind: 'outcome', exchange });
  };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = (req.url ?? '/').split('?')[0] as string;
    const exchange: Exchange = { method: req.method ?? 'GET', path: req.url ?? '/', body: Buffer.concat(chunks) };
    proxy.exchanges.push(exchange);
    proxy.events.push({ kind: 'request', exchange });
    const fault = proxy.fault(exchange);
    if (fault.kind === 'refuse') {
      settle(exchange, 'refused');
      req.socket.destroy();
      return;
    }
    if (fault.kind === 'answer') {
      settle(exchange, 'injected');
      res.writeHead(fault.status, { 'content-type': 'application/json' }).end(JSON.stringify(fault.body));
      return;
    }
    underWay.set(path, (underWay.get(path) ?? 0) + 1);
    most.set(path, Math.max(most.get(path) ?? 0, underWay.get(path) as number));
    // A daemon that gives up a long poll closes its connection: the hub's side closes too.
    const gone = new AbortController();
    res.on('close', () => gone.abort());
    try {
      const answer = await fetch(`${target}${exchange.path}`, {
        method: exchange.method,
        headers: forwarded(req.headers),
        body: exchange.method === 'GET' ? undefined : exchange.body,
        signal: gone.signal,
      });
      const body = Buffer.from(await answer.arrayBuffer());
      if (fault.kind === 'delay') await new Promise((resolve) => setTimeout(resolve, fault.ms));
      if (fault.kind === 'drop-answer') {
        settle(exchange, 'dropped');
        req.socket.destroy();
        return;
      }
      settle(exchange, answer.status);
      const type = answer.headers.get('content-type');
      res.writeHead(answer.status, type === null ? {} : { 'content-type': type }).end(body);
    } catch {
      settle(exchange, 'refused');
      req.socket.destroy();
    } finally {
      underWay.set(path, (underWay.get(path) as number) - 1);
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  proxy.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return proxy;
}

function forwarded(headers: IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(
    FORWARDED.flatMap((name) => (typeof headers[name] === 'string' ? [[name, headers[name]]] : [])),
  );
}
