import { unauthorized } from '../auth/api-key.js';
import { invalidProblem } from '../configurations/index.js';
import type { Hub } from '../hub.js';
import { authOf } from '../http/context.js';
import { handle, type Handlers } from '../http/operation.js';
import { checkTrigger, installTrigger } from './service.js';

/** The organization's triggers (B): sections 4.6 and 4.7. */
export function triggerHandlers(hub: Hub): Handlers {
  return {
    validateTrigger: handle(async ({ req, res, body }) => {
      const checked = await checkTrigger(hub.sql, hub.compile, authOf(req).organizationId, body.yaml);
      if (!checked.ok) throw invalidProblem(checked, 'invalid_trigger');
      res.json({ name: checked.name, valid: true });
    }),
    installTrigger: handle(async ({ req, res, body }) => {
      const installed = await installTrigger(hub.sql, hub.compile, authOf(req), body.yaml);
      if (!installed.ok)
        throw installed.reason === 'invalid' ? invalidProblem(installed, 'invalid_trigger') : unauthorized();
      res.status(201).json({ ...installed.trigger, active: true });
    }),
  };
}
