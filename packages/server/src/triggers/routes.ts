import type { Request } from 'express';
import { unauthorized } from '../auth/api-key.js';
import type { Hub } from '../hub.js';
import { authOf } from '../http/context.js';
import { handle, type Handlers } from '../http/operation.js';
import { compileChecked } from '../configurations/routes.js';

/** The organization's triggers (B): sections 4.6 and 4.7. */
export function triggerHandlers(hub: Hub): Handlers {
  const compile = async (req: Request, yaml: string) => {
    const catalog = await hub.daemons.catalog(authOf(req).organizationId);
    const { model, triggerNames } = await compileChecked(
      hub,
      { kind: 'trigger', input: { yaml }, catalog },
      'invalid_trigger',
    );
    return { model, name: triggerNames[0] as string };
  };
  return {
    validateTrigger: handle(async ({ req, res, body }) => {
      const { name } = await compile(req, body.yaml);
      res.json({ name, valid: true });
    }),
    installTrigger: handle(async ({ req, res, body }) => {
      const { model, name } = await compile(req, body.yaml);
      const { organizationId, keyId } = authOf(req);
      const installed = await hub.triggers.install(organizationId, name, body.yaml, model, keyId);
      if (installed === 'key_revoked') throw unauthorized();
      res.status(201).json({ ...installed, active: true });
    }),
  };
}
