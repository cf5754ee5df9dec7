import { createHash } from 'node:crypto';
import type { VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { PAGE_STYLE } from './layout.js';

/** A page's whole HTML: the doctype, then the page rendered (every text escaped by Preact). */
export function renderPage<P>(page: VNode<P>): string {
  return `<!doctype html>${renderToString(page)}`;
}

const styleHash = createHash('sha256').update(PAGE_STYLE).digest('base64');

/** The pages load nothing: the one inline stylesheet (by its hash) is all the policy allows. */
export const PAGE_POLICY = [
  "default-src 'none'",
  `style-src 'sha256-${styleHash}'`,
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
