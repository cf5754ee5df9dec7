import type { Hub } from '../hub.js';
import { HttpProblem } from '../problems/problem.js';
import type { Route } from './registry.js';

export function healthRoutes(hub: Hub): Route[] {
  return [
    { method: 'GET', path: '/healthz', handlers: [(_req, res) => void res.json({ status: 'ok' })] },
    {
      method: 'GET',
      path: '/readyz',
      handlers: [
        async (_req, res) => {
          try {
            await hub.sql`select 1`;
          } catch {
            throw new HttpProblem('not_ready', 'The database does not answer.');
          }
          res.json({ status: 'ready' });
        },
      ],
    },
  ];
}
