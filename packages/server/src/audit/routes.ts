import { auditEvents } from './service.js';
import type { AuditEventRow } from './sql.js';
import type { Hub } from '../hub.js';
import { authOf } from '../http/context.js';
import { handle, type Handlers } from '../http/operation.js';
import { HttpProblem } from '../problems/problem.js';
import { isCanonicalUuid } from '@hub/schemas';

export const AUDIT_PAGE = 50;

/** The organization's events, newest first, a page at a time: the cursor is the last event's id. */
export function auditHandlers(hub: Hub): Handlers {
  return {
    listAuditEvents: handle(async ({ req, res, query }) => {
      const { cursor } = query;
      if (cursor !== undefined && !isCanonicalUuid(cursor)) {
        throw new HttpProblem('invalid_request', 'The cursor is not one this hub gave; pass `next` from an answer.', {
          issues: [
            {
              pointer: '',
              code: 'request.pattern',
              message: 'The query parameter cursor is not a cursor this hub gave.',
            },
          ],
        });
      }
      const page = await auditEvents(hub.sql, authOf(req).organizationId, cursor, query.limit ?? AUDIT_PAGE);
      res.json({ events: page.events.map(wire), next: page.older ?? null });
    }),
  };
}

function wire(row: AuditEventRow) {
  const { id, kind, actor, subject, address } = row;
  return { id, at: row.at.toISOString(), kind, actor, subject, ...(address === null ? {} : { address }) };
}
