import type { Issue } from '../issues/issue.js';
import type { DeclaredInput } from '../model/types.js';

export type ManualInputResult =
  { ok: true; inputs: Record<string, string>; prompt: string } | { ok: false; issues: Issue[] };

const KEY = /^([a-z][a-z0-9_]*)=/;

/**
 * Splits a dispatch's `input` text as DECISIONS.md says: leading whitespace-separated key=value
 * tokens whose key is a declared input (a value may be double-quoted, with \" inside) are the
 * inputs; parsing stops at the first other token, and the rest, trimmed, is the prompt.
 * A later token for the same key wins. Defaults fill the inputs not given.
 */
export function parseManualInput(input: string | undefined, declaredInputs: DeclaredInput[]): ManualInputResult {
  const text = typeof input === 'string' ? input : '';
  const declarations = Array.isArray(declaredInputs) ? declaredInputs.filter((d) => typeof d?.name === 'string') : [];
  const declared = new Map(declarations.map((declaration) => [declaration.name, declaration]));
  const given: Record<string, string> = {};
  let at = skipSpace(text, 0);
  while (at < text.length) {
    const token = readToken(text, at, declared);
    if (token === undefined) break;
    given[token.key] = token.value;
    at = skipSpace(text, token.end);
  }
  const inputs: Record<string, string> = {};
  const issues: Issue[] = [];
  for (const declaration of declarations) {
    const value = Object.hasOwn(given, declaration.name) ? given[declaration.name] : declaration.default;
    if (value === undefined) {
      if (declaration.required) {
        issues.push({
          pointer: '/input',
          code: 'input.required',
          message: `The input "${declaration.name}" is required: start the input with ${declaration.name}=<value>.`,
        });
      }
      continue;
    }
    if (Array.isArray(declaration.enum) && !declaration.enum.includes(value)) {
      issues.push({
        pointer: '/input',
        code: 'input.not_in_enum',
        message: `The input "${declaration.name}" is "${value}"; it must be one of: ${declaration.enum.join(', ')}.`,
      });
      continue;
    }
    inputs[declaration.name] = value;
  }
  if (issues.length > 0) return { ok: false, issues };
  return { ok: true, inputs, prompt: text.slice(at).trim() };
}

function skipSpace(text: string, at: number): number {
  while (at < text.length && /\s/.test(text[at] as string)) at++;
  return at;
}

function readToken(
  text: string,
  start: number,
  declared: Map<string, DeclaredInput>,
): { key: string; value: string; end: number } | undefined {
  const match = KEY.exec(text.slice(start, start + 80));
  if (match === null || !declared.has(match[1] as string)) return undefined;
  const key = match[1] as string;
  let at = start + match[0].length;
  if (text[at] !== '"') {
    let end = at;
    while (end < text.length && !/\s/.test(text[end] as string)) end++;
    return { key, value: text.slice(at, end), end };
  }
  let value = '';
  for (at++; at < text.length; at++) {
    const c = text[at];
    if (c === '\\' && text[at + 1] === '"') {
      value += '"';
      at++;
    } else if (c === '"') {
      const end = at + 1;
      if (end < text.length && !/\s/.test(text[end] as string)) return undefined;
      return { key, value, end };
    } else value += c;
  }
  return undefined;
}
