// The data the audit page renders: plain values, loaded by the route.
import type { AuditEventRow } from '../ports/audit.js';
import type { SessionView } from '../store.js';

export interface AuditPageProps {
  session: SessionView;
  events: AuditEventRow[];
  /** The link to the next, older page; undefined on the last one. */
  olderHref: string | undefined;
  /** Not the first page: a link back to the newest events. */
  paged: boolean;
}
