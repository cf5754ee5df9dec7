import type { Hub } from '../hub.js';
import { authOf } from '../http/context.js';
import { handle, type Handlers } from '../http/operation.js';
import { credential } from './service.js';

/** GET /api/v1/credential: what the request's own credential is (`hub auth status`, `hub login --with-token`). */
export function credentialHandlers(hub: Hub): Handlers {
  return {
    getCredential: handle(async ({ req, res }) => {
      const found = await credential(hub.sql, authOf(req).keyId);
      // Keys are revoked, never deleted: the key just checked is there.
      if (found === undefined) throw new Error(`credential ${authOf(req).keyId} vanished`);
      res.json(found);
    }),
  };
}
