import type { Platform } from '../http/platform.js';
import { handle, type Handlers } from '../http/operation.js';
import { documentText } from './contract.js';
import { HttpProblem } from '../problems/problem.js';

/** Liveness, readiness, and the OpenAPI document itself (served as committed, byte for byte). */
export function operationHandlers(hub: Platform): Handlers {
  return {
    health: handle(({ res }) => void res.json({ status: 'ok' })),
    readiness: handle(async ({ res }) => {
      // Stopping: a load balancer's check moves traffic away while the instance still serves it.
      if (hub.draining === true) throw new HttpProblem('not_ready', 'The hub is stopping.');
      // Known down: say so at once (the health checks again every quarter second meanwhile).
      if (hub.health?.down === true) throw new HttpProblem('not_ready', 'The database does not answer.');
      try {
        await hub.sql`select 1`;
      } catch (error) {
        hub.health?.report(error);
        throw new HttpProblem('not_ready', 'The database does not answer.');
      }
      res.json({ status: 'ready' });
    }),
    openApiDocument: handle(({ res }) => void res.type('application/json').send(documentText)),
  };
}
