// `hub daemon run --metrics-port`: the daemon's Prometheus metrics at GET /metrics, on an address
// of its own (loopback unless --metrics-host says otherwise: see docs/decisions.md, Metrics).
import { createServer, type Server } from 'node:http';
import { isIP } from 'node:net';
import type { DaemonMetrics } from '@hub/daemon';
import { CliError, UsageError } from '../errors.js';

export const DEFAULT_METRICS_HOST = '127.0.0.1';

/** --metrics-port and --metrics-host, read: undefined without a port. */
export function metricsAddress(
  command: string,
  port: string | undefined,
  host: string | undefined,
): { host: string; port: number } | undefined {
  if (port === undefined) {
    if (host !== undefined) throw new UsageError('--metrics-host needs --metrics-port.', command);
    return undefined;
  }
  if (!/^\d{1,5}$/.test(port) || Number(port) > 65_535)
    throw new UsageError(`--metrics-port must be a port number (0 to 65535), not "${port}".`, command);
  const address = host ?? DEFAULT_METRICS_HOST;
  if (address !== 'localhost' && isIP(address) === 0)
    throw new UsageError(`--metrics-host must be an IP address (or localhost), not "${address}".`, command);
  return { host: address, port: Number(port) };
}

export interface MetricsServer {
  /** http://host:port/metrics, with the port bound (port 0 picks a free one). */
  url: string;
  close(): Promise<void>;
}

/** Listens on `address`; GET (or HEAD) /metrics answers the text format, anything else 404 or 405. */
export async function serveMetrics(
  metrics: DaemonMetrics,
  address: { host: string; port: number },
): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: the metrics are at /metrics.\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { 'content-type': 'text/plain', allow: 'GET, HEAD' }).end('Method not allowed.\n');
      return;
    }
    metrics.text().then(
      ({ contentType, body }) =>
        res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' }).end(body),
      (error: unknown) =>
        res.writeHead(500, { 'content-type': 'text/plain' }).end(`Metrics failed: ${(error as Error).message}\n`),
    );
  });
  await listen(server, address);
  const { port } = server.address() as { port: number };
  const host = isIP(address.host) === 6 ? `[${address.host}]` : address.host;
  return {
    url: `http://${host}:${port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function listen(server: Server, address: { host: string; port: number }): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new CliError(
          `Cannot serve the metrics on ${address.host}:${address.port}: ${error.code === 'EADDRINUSE' ? 'the port is in use' : error.message}.`,
          2,
        ),
      ),
    );
    server.listen(address.port, address.host, () => resolve());
  });
}
