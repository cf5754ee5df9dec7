// A webhook receiver on loopback for tests: it verifies every delivery with the `standardwebhooks`
// package (Standard Webhooks' own library, not the hub's code), keeps what arrived, and answers
// as the test says (a status, or never).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  id: string;
  timestamp: string;
  /** The body, verified and parsed. */
  event: { type: string; timestamp: string; data: Record<string, unknown> };
  /** What the receiver answered: a status, or 'hang' (no answer). */
  answered: number | 'hang';
}

/** How the receiver answers its n-th request (0-based): a status, or 'hang' to never answer. */
export type Answering = (n: number, received: Received) => number | 'hang';

export class WebhookReceiver {
  readonly received: Received[] = [];
  /** Requests that failed verification, with why: a test expects none. */
  readonly refused: string[] = [];
  private verifier: Webhook | undefined;
  private readonly hanging: ServerResponse[] = [];
  private readonly server = createServer((req, res) => this.take(req, res));

  private constructor(private answering: Answering) {}

  static async start(answering: Answering = () => 200): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver(answering);
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  }

  /** The endpoint's secret, from its creation: every delivery is verified with it from now on. */
  secret(secret: string): void {
    this.verifier = new Webhook(secret);
  }

  answer(answering: Answering): void {
    this.answering = answering;
  }

  of(type: string): Received[] {
    return this.received.filter((each) => each.event.type === type);
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private take(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = {
        'webhook-id': String(req.headers['webhook-id']),
        'webhook-timestamp': String(req.headers['webhook-timestamp']),
        'webhook-signature': String(req.headers['webhook-signature']),
      };
      let event: Received['event'];
      try {
        if (this.verifier === undefined) throw new Error('no secret yet');
        // As the README's receiver does it: the request's headers, as Node gives them.
        event = this.verifier.verify(body, req.headers as Record<string, string>) as Received['event'];
      } catch (error) {
        this.refused.push(`${(error as Error).message}: ${body.slice(0, 200)}`);
        res.statusCode = 400;
        res.end('refused');
        return;
      }
      const received: Received = {
        id: headers['webhook-id'],
        timestamp: headers['webhook-timestamp'],
        event,
        answered: 200,
      };
      received.answered = this.answering(this.received.length, received);
      this.received.push(received);
      if (received.answered === 'hang') {
        this.hanging.push(res);
        return;
      }
      res.statusCode = received.answered;
      res.end(received.answered < 300 ? 'ok' : `no: ${received.answered}`);
    });
  }
}
