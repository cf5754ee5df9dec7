import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';
import type { AttemptOutcome, LeasedDelivery } from './outbox.js';
import { signatureOf } from './signing.js';

/** How much of an answer the delivery log keeps. */
export const EXCERPT_BYTES = 1_024;

const USER_AGENT = 'hub-webhooks/1';

// Connections are kept alive per origin. Without HUB_WEBHOOK_ALLOW_PRIVATE the agents check, at
// each connection, the address the name resolved to (request-filtering-agent): a name that turned
// private since the endpoint was registered (DNS rebinding) is refused then, not connected to.
const KEEP_ALIVE = { keepAlive: true, maxSockets: 16 };
const filtering = {
  http: new RequestFilteringHttpAgent(KEEP_ALIVE),
  https: new RequestFilteringHttpsAgent(KEEP_ALIVE),
};
const open = { http: new HttpAgent(KEEP_ALIVE), https: new HttpsAgent(KEEP_ALIVE) };

/**
 * One attempt: POSTs the event, signed as Standard Webhooks say, and waits at most `timeoutMs`
 * for a 2xx (redirects are not followed: a 3xx has failed). Never throws: what went wrong is the
 * outcome's `error`.
 */
export function sendAttempt(
  delivery: LeasedDelivery,
  options: { timeoutMs: number; allowPrivate: boolean },
): Promise<AttemptOutcome> {
  const startedAt = new Date();
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const timestamp = Math.floor(startedAt.getTime() / 1000);
  const body = Buffer.from(delivery.body);
  return new Promise((resolve) => {
    let settled = false;
    const settle = (outcome: Omit<AttemptOutcome, 'startedAt' | 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...outcome, startedAt, durationMs: elapsed() });
    };
    let url: URL;
    try {
      url = new URL(delivery.url);
    } catch {
      settle({ ok: false, error: 'The endpoint’s URL is not a URL.' });
      return;
    }
    const secure = url.protocol === 'https:';
    const agents = options.allowPrivate ? open : filtering;
    const request = (secure ? httpsRequest : httpRequest)(url, {
      method: 'POST',
      agent: secure ? agents.https : agents.http,
      headers: {
        'content-type': 'application/json',
        'content-length': body.length,
        'user-agent': USER_AGENT,
        'webhook-id': delivery.eventId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signatureOf(delivery.secret, delivery.eventId, timestamp, delivery.body),
      },
    });
    const timer = setTimeout(() => {
      settle({ ok: false, error: `The receiver did not answer within ${options.timeoutMs / 1000} s.` });
      request.destroy();
    }, options.timeoutMs);
    request.on('error', (error) => settle({ ok: false, error: describe(error) }));
    request.on('response', (response) => {
      readExcerpt(response).then((excerpt) => {
        const status = response.statusCode ?? 0;
        settle({
          ok: status >= 200 && status < 300,
          responseStatus: status,
          ...(excerpt === '' ? {} : { responseExcerpt: excerpt }),
        });
      });
    });
    request.end(body);
  });
}

/** The first EXCERPT_BYTES of an answer, as text; the rest is not read (the connection is closed then). */
function readExcerpt(response: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () =>
      resolve(
        Buffer.concat(chunks)
          .subarray(0, EXCERPT_BYTES)
          .toString('utf8')
          .replace(/\uFFFD+$/, ''),
      );
    response.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= EXCERPT_BYTES) {
        response.destroy();
        done();
      }
    });
    response.on('end', done);
    response.on('error', done);
    response.on('close', done);
  });
}

/** What went wrong, for the delivery log: the refusal of a private address as such, else the error's own words. */
function describe(error: Error): string {
  const message = error.message;
  if (/is not allowed\. Because/.test(message)) {
    const address = /lookup ([^(]+)\(/.exec(message)?.[1] ?? 'its address';
    return `Refused: the host resolved to ${address}, which is not a public address (HUB_WEBHOOK_ALLOW_PRIVATE=true allows it).`;
  }
  const code = (error as { code?: string }).code;
  return code === undefined ? message : `${code}: ${message}`;
}
