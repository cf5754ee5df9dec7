import type { Sql } from 'postgres';
import type { AuditList } from '../dashboard/types.js';
import { isUuid } from '@hub/schemas';
import { auditEvents } from './service.js';

/** The dashboard's audit page: the organization's events by keyset, as GET /api/v1/audit-events reads them. */
export function auditStore(sql: Sql) {
  return {
    async auditEvents(organizationId: string, page: { cursor: string | undefined; limit: number }): Promise<AuditList> {
      if (!isUuid(organizationId) || (page.cursor !== undefined && !isUuid(page.cursor)))
        return { events: [], older: undefined };
      return auditEvents(sql, organizationId, page.cursor, page.limit);
    },
  };
}
