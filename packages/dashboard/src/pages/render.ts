import type { VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';

/** A page's whole HTML: the doctype, then the page rendered (every text and attribute escaped by Preact). */
export function renderPage<P>(page: VNode<P>): string {
  return `<!doctype html>${renderToString(page)}`;
}
