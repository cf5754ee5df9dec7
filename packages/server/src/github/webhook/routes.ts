import type { Hub } from '../../hub.js';
import { handle, type Handlers } from '../../http/operation.js';
import { DeliveryRepository } from '../deliveries/sql.js';
import { isReadEvent } from '../events.js';
import { checkSignature } from './signature.js';
import { HttpProblem } from '../../problems/problem.js';

/**
 * How long the receiving instance holds a delivery it has stored before any other may act on it:
 * it acts at once, so this is only how long a delivery waits when its receiver died just after
 * answering.
 */
const RECEIVER_LEASE_MS = 10_000;

const DELIVERY = /^[A-Za-z0-9-]{1,100}$/;
const EVENT = /^[a-z_]{1,64}$/;

function missingHeaders(delivery: string, event: string): HttpProblem {
  const issue = (value: string, name: string, what: string) => ({
    pointer: '',
    code: value === '' ? ('request.required' as const) : ('request.pattern' as const),
    message: `${name} must be ${what}, as GitHub sends it.`,
  });
  const issues = [
    ...(DELIVERY.test(delivery) ? [] : [issue(delivery, 'X-GitHub-Delivery', "the delivery's id")]),
    ...(EVENT.test(event) ? [] : [issue(event, 'X-GitHub-Event', "the event's name")]),
  ];
  return new HttpProblem('invalid_request', issues.map((found) => found.message).join(' '), { issues });
}

/**
 * `POST /api/v1/github/webhook` (DECISIONS.md, GitHub): signed, stored, answered. The signature is
 * checked before the body is parsed (`authenticate`); a delivery of an event the hub reads is in
 * PostgreSQL before the 202, so that a hub that dies after answering still acts on it (any
 * instance's processor claims it); the rest happens after the answer.
 */
export function githubWebhookHandlers(hub: Hub): Handlers {
  return {
    receiveGitHubWebhook: handle<'receiveGitHubWebhook'>(
      async ({ req, res, body }) => {
        const delivery = req.get('x-github-delivery') ?? '';
        const event = req.get('x-github-event') ?? '';
        if (!DELIVERY.test(delivery) || !EVENT.test(event)) throw missingHeaders(delivery, event);
        if (!isReadEvent(event, body)) {
          hub.log.info('github delivery ignored', {
            delivery,
            event,
            action: String((body as { action?: unknown }).action),
          });
          res.status(202).json({ delivery, status: 'ignored' });
          return;
        }
        const stored = await new DeliveryRepository(hub.sql).store(delivery, event, body, RECEIVER_LEASE_MS);
        res.status(202).json({ delivery, status: stored === undefined ? 'duplicate' : 'queued' });
        // Committed before the answer; acted on here at once, after it.
        if (stored !== undefined) hub.github?.received(stored);
      },
      { authenticate: checkSignature(hub.options.github) },
    ),
  };
}
