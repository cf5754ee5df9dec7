import { AuditListRepository, type AuditEventRow } from './sql.js';
import type { Hub } from '../hub.js';
import { authOf } from '../http/context.js';
import { handle, type Handlers } from '../http/operation.js';
import { HttpProblem } from '../problems/problem.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const AUDIT_PAGE = 50;

/** The organization's events, newest first, a page at a time: the cursor is the last event's id. */
export function auditHandlers(hub: Hub): Handlers {
  const events = new AuditListRepository(hub.sql);
  return {
    listAuditEvents: handle(async ({ req, res, query }) => {
      const { cursor } = query;
      if (cursor !== undefined && !UUID.test(cursor)) {
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
      const limit = query.limit ?? AUDIT_PAGE;
      const rows = await events.list(authOf(req).organizationId, cursor, limit);
      const shown = rows.slice(0, limit);
      res.json({ events: shown.map(wire), next: rows.length > limit ? (shown.at(-1)?.id ?? null) : null });
    }),
  };
}

function wire(row: AuditEventRow) {
  const { id, kind, actor, subject, address } = row;
  return { id, at: row.at.toISOString(), kind, actor, subject, ...(address === null ? {} : { address }) };
}
