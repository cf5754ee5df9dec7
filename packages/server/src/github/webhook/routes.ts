import type { Hub } from '../../hub.js';
import { handle, type Handlers } from '../../http/operation.js';
import { DeliveryRepository } from '../deliveries/sql.js';
import { isReadEvent } from '../events.js';
import { checkSignature } from './signature.js';

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
        const delivery = req.get('x-github-delivery') as string;
        const event = req.get('x-github-event') as string;
        if (!isReadEvent(event, body)) {
          hub.log.info('github delivery ignored', {
            delivery,
            event,
            action: String((body as { action?: unknown }).action),
          });
          res.status(202).json({ delivery, status: 'ignored' });
          return;
        }
        const status = await new DeliveryRepository(hub.sql).store(delivery, event, body);
        res.status(202).json({ delivery, status });
      },
      { authenticate: checkSignature(hub.options.github) },
    ),
  };
}
