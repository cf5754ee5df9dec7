// A recording HTTP proxy in front of a real hub: every request body is kept byte for byte, and a
// test may act just before a request is forwarded (revoke the key, re-enroll a daemon), so that
// the hub itself changes between two requests of one command.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  method: string;
  path: string;
  body: Buffer;
  status?: number;
}

export interface RecordingProxy {
  origin: string;
  requests: Recorded[];
  /** Runs before each request is forwarded (the request is already in `requests`). */
  before: ((request: Recorded) => Promise<void>) | undefined;
  close(): Promise<void>;
}

const FORWARDED = ['authorization', 'content-type', 'accept', 'x-request-id'];

export async function recordingProxy(target: string): Promise<RecordingProxy> {
  const proxy: RecordingProxy = { origin: '', requests: [], before: undefined, close: async () => {} };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const recorded: Recorded = { method: req.method ?? 'GET', path: req.url ?? '/', body: Buffer.concat(chunks) };
    proxy.requests.push(recorded);
    try {
      await proxy.before?.(recorded);
      const headers = Object.fromEntries(
        FORWARDED.flatMap((name) => (typeof req.headers[name] === 'string' ? [[name, req.headers[name]]] : [])),
      );
      const answer = await fetch(`${target}${recorded.path}`, {
        method: recorded.method,
        headers,
        body: recorded.method === 'GET' ? undefined : recorded.body,
      });
      recorded.status = answer.status;
      const body = Buffer.from(await answer.arrayBuffer());
      res.writeHead(answer.status, {
        'content-type': answer.headers.get('content-type') ?? 'application/octet-stream',
        'x-request-id': answer.headers.get('x-request-id') ?? '',
      });
      res.end(body);
    } catch (error) {
      res.writeHead(502, { 'content-type': 'text/plain' }).end(`proxy: ${(error as Error).message}`);
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
