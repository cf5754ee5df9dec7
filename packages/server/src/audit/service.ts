import type { Db } from '../db/connect.js';
import { AuditListRepository, type AuditEventRow } from './sql.js';

export interface AuditPage {
  events: AuditEventRow[];
  /** The cursor of the next (older) page: its last event's id; undefined on the last page. */
  older: string | undefined;
}

/**
 * A page of the organization's events, newest first: up to `limit` older than the event `before`
 * (from the newest when undefined). Shared by GET /api/v1/audit-events and the dashboard's page,
 * which each check the cursor by their own rules first.
 */
export async function auditEvents(
  db: Db,
  organizationId: string,
  before: string | undefined,
  limit: number,
): Promise<AuditPage> {
  const rows = await new AuditListRepository(db).list(organizationId, before, limit);
  const events = rows.slice(0, limit);
  return { events, older: rows.length > limit ? events.at(-1)?.id : undefined };
}
