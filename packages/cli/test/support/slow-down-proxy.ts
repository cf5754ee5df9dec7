// A proxy in front of a real hub that makes the hub itself answer one poll of `hub login` with
// slow_down: it forwards the first token poll, sends the same poll again at once (sooner than
// the interval, so the hub answers slow_down and grows the interval by 5 s), and gives the CLI
// that second answer. The metadata is rewritten to name the proxy's endpoints, so that the CLI,
// which only talks to endpoints on the origin it was given, goes through the proxy.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Poll {
  /** Date.now() when the hub's answer came back. */
  at: number;
  /** The second sending of the first poll, whose answer the CLI got. */
  replay: boolean;
  status: number;
  error: string | undefined;
}

export interface SlowDownProxy {
  origin: string;
  /** Every poll of the token endpoint the hub answered, in order. */
  polls: Poll[];
  /** Date.now() once the slow_down answer was sent to the CLI. */
  repliedAt: number | undefined;
  /** Date.now() when each later poll of the CLI arrived. */
  arrivals: number[];
  close(): Promise<void>;
}

const FORWARDED = ['authorization', 'content-type', 'accept'];

export async function slowDownProxy(target: string): Promise<SlowDownProxy> {
  const proxy: SlowDownProxy = { origin: '', polls: [], repliedAt: undefined, arrivals: [], close: async () => {} };
  const forward = async (method: string, path: string, headers: Record<string, string>, body: string | undefined) => {
    const answer = await fetch(`${target}${path}`, { method, headers, body, redirect: 'manual' });
    return {
      status: answer.status,
      type: answer.headers.get('content-type') ?? 'application/octet-stream',
      text: await answer.text(),
    };
  };
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const path = req.url ?? '/';
    const method = req.method ?? 'GET';
    const headers = Object.fromEntries(
      FORWARDED.flatMap((name) => (typeof req.headers[name] === 'string' ? [[name, req.headers[name]]] : [])),
    );
    const isPoll = method === 'POST' && path === '/oauth/token';
    if (isPoll && proxy.repliedAt !== undefined) proxy.arrivals.push(Date.now());
    let answer = await forward(method, path, headers, method === 'GET' ? undefined : body);
    if (isPoll) {
      const record = (replay: boolean) =>
        proxy.polls.push({ at: Date.now(), replay, status: answer.status, error: errorOf(answer.text) });
      record(false);
      if (!proxy.polls.some((poll) => poll.replay)) {
        answer = await forward(method, path, headers, body);
        record(true);
      }
    }
    const text =
      path === '/.well-known/oauth-authorization-server' ? answer.text.split(target).join(proxy.origin) : answer.text;
    res.writeHead(answer.status, { 'content-type': answer.type });
    res.end(text, () => {
      if (isPoll && proxy.repliedAt === undefined && proxy.polls.some((poll) => poll.replay))
        proxy.repliedAt = Date.now();
    });
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

function errorOf(text: string): string | undefined {
  try {
    return (JSON.parse(text) as { error?: string }).error;
  } catch {
    return undefined;
  }
}
