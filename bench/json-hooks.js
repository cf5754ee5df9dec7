// @ts-check
/**
 * A module hook for Node 20: @actions/workflow-parser imports its JSON schemas without an import
 * attribute (its bundler-oriented build), which Node refuses. This adds `type: 'json'` to those
 * imports, and only to the peer's; bench/compile.bench.js registers it before importing the peer.
 */

/**
 * @param {string} url
 * @param {{ format?: string | null | undefined, importAttributes: Record<string, string> }} context
 * @param {(url: string, context?: object) => unknown} nextLoad
 */
export async function load(url, context, nextLoad) {
  if (url.includes('/@actions/') && url.endsWith('.json') && context.importAttributes.type === undefined) {
    return nextLoad(url, { ...context, importAttributes: { ...context.importAttributes, type: 'json' } });
  }
  return nextLoad(url, context);
}
