// Origins for tests of which hub a command picked: one that nothing listens on names itself in
// the "could not reach" error, and a listener that only records whether anything called it.
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** http://127.0.0.1:PORT, where PORT was free a moment ago and is closed now. */
export async function closedOrigin(): Promise<string> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

export interface Listener {
  origin: string;
  calls: { method: string; path: string; headers: IncomingHttpHeaders; body: string }[];
  close(): Promise<void>;
}

/** Answers every request 404 (as the hub does for a path it does not have), and records it. */
export async function recordingListener(): Promise<Listener> {
  const calls: Listener['calls'] = [];
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    calls.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
    res
      .writeHead(404, { 'content-type': 'application/problem+json' })
      .end(JSON.stringify({ title: 'Not found', status: 404, code: 'not_found' }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    calls,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
