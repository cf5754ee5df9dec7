// The organizations' audit trail: every feature records its events here (in the transaction of
// its change); GET /api/v1/audit-events and the dashboard's page read them.
export {
  AUDIT_KINDS,
  AuditListRepository,
  AuditRepository,
  auditColumns,
  credentialName,
  type AuditActor,
  type AuditEventRow,
  type AuditKind,
} from './sql.js';
export { auditEvents, type AuditPage } from './service.js';
export { AUDIT_PAGE, auditHandlers } from './routes.js';
export { auditStore } from './dashboard.js';
