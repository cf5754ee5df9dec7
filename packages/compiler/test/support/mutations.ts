// Arbitraries and checks the property tests share.
import fc from 'fast-check';
import type { Issue } from '../../src/index.js';

/** A valid document with a few characters spliced in or cut out. */
export function mutated(base: string) {
  return fc
    .array(fc.tuple(fc.nat({ max: base.length }), fc.nat({ max: 5 }), fc.string({ maxLength: 4 })), { maxLength: 4 })
    .map((edits) => edits.reduce((text, [at, cut, insert]) => text.slice(0, at) + insert + text.slice(at + cut), base));
}

function lines(text: string): string[] {
  return text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
}

/** Every positioned issue lies inside the text it points into. */
export function positionsInside(issues: Issue[], texts: Map<string | undefined, string>): boolean {
  for (const issue of issues) {
    if (issue.line === undefined) continue;
    const text = texts.get(issue.file);
    if (text === undefined) return false;
    const all = lines(text);
    const line = all[issue.line - 1];
    if (line === undefined || issue.column === undefined || issue.column < 1) return false;
    if (issue.column > [...line].length + 1) return false;
  }
  return true;
}
