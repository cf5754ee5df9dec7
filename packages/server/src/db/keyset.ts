import type { Fragment } from 'postgres';
import type { Db } from './connect.js';

/**
 * Keyset paging, newest first: the condition "older than the row `before`" on `alias`'s (`at`, id),
 * or `true` from the newest. The cursor's row is read by its primary key alone (OFFSET 0 keeps the
 * organization's condition out of that scan, which the planner would otherwise merge into it;
 * see runs/run-view.ts, byId); a row of another organization is no cursor (nothing is older).
 */
export function olderThan(
  db: Db,
  rows: { table: string; alias: string; at: string },
  organizationId: string,
  before: string | undefined,
): Fragment {
  if (before === undefined) return db`true`;
  const { table, alias, at } = rows;
  return db`(${db(`${alias}.${at}`)}, ${db(`${alias}.id`)}) < (
    select c.${db(at)}, c.id from (select ${db(at)}, id, organization_id from ${db(table)} where id = ${before} offset 0) c
    where c.organization_id = ${organizationId})`;
}
