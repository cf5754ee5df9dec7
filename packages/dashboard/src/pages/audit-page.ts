import { h } from 'preact';
import type { AuditPageProps } from './audit-props.js';
import { AuditPage } from './audit.js';
import { renderPage } from './render.js';

// The audit page, as pages/index.ts gives the others: plain data in, HTML out.
export type * from './audit-props.js';

export const auditPage = (props: AuditPageProps): string => renderPage(h(AuditPage, props));
