import type { AuditList } from '../dashboard/types.js';
import type { Sql } from 'postgres';
import { AuditListRepository } from './sql.js';
import { isUuid } from '../people/input.js';

/** The dashboard's audit page: the organization's events by keyset, as GET /api/v1/audit-events reads them. */
export function auditStore(sql: Sql) {
  const events = new AuditListRepository(sql);
  return {
    async auditEvents(organizationId: string, page: { cursor: string | undefined; limit: number }): Promise<AuditList> {
      if (!isUuid(organizationId) || (page.cursor !== undefined && !isUuid(page.cursor)))
        return { events: [], older: undefined };
      const rows = await events.list(organizationId, page.cursor, page.limit);
      const shown = rows.slice(0, page.limit);
      return { events: shown, older: rows.length > page.limit ? shown.at(-1)?.id : undefined };
    },
  };
}
