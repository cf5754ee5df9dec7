import { suggest } from '@hub/compiler';
import type { ErrorObject } from 'ajv';
import type { FieldIssue } from '../problems/problem.js';
import type { RequestIssueCode } from '../problems/request-issues.js';

/** A NUL character or a lone surrogate: what PostgreSQL cannot store, in any string. */
const FORBIDDEN = /[\u0000\ud800-\udfff]/u;

/** Where the value that failed sits: the body (pointers into it), or a named parameter. */
export type Place = { in: 'body' } | { in: 'path' | 'query'; name: string };

/**
 * The validator's errors as field issues: one function for every request (STYLE.md, practice 4).
 * Combinators are collapsed to the branch that came closest (a tie between `oneOf` branches is a
 * `request.shape` issue of its own), an object whose `const` members differ is reported once as
 * the wrong kind of object, unknown members get a "did you mean", and nothing is said twice.
 */
export function toIssues(errors: readonly ErrorObject[], place: Place): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const seen = new Set<string>();
  for (const error of collapseKinds(collapseCombinators([...errors]))) {
    const issue = describe(error, place);
    const key = `${issue.pointer}\u0000${issue.code}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push(issue);
  }
  return issues;
}

function collapseCombinators(errors: ErrorObject[]): ErrorObject[] {
  let kept = errors;
  for (const combinator of errors.filter((error) => error.keyword === 'oneOf' || error.keyword === 'anyOf')) {
    if (!kept.includes(combinator)) continue;
    const prefix = `${combinator.schemaPath}/`;
    const branches = new Map<string, ErrorObject[]>();
    for (const error of kept) {
      if (!error.schemaPath.startsWith(prefix)) continue;
      const branch = error.schemaPath.slice(prefix.length).split('/')[0] as string;
      branches.set(branch, [...(branches.get(branch) ?? []), error]);
    }
    // Closest: the fewest errors about the value's own members (missing, unknown), then the fewest in all.
    const score = (branch: ErrorObject[]) => [branch.filter((error) => error.instancePath === combinator.instancePath).length, branch.length] as const;
    const ranked = [...branches.values()].sort((a, b) => score(a)[0] - score(b)[0] || score(a)[1] - score(b)[1]);
    const [best, second] = ranked;
    const inside = (error: ErrorObject) => error.schemaPath.startsWith(prefix);
    const tie = best !== undefined && second !== undefined && score(best)[0] === score(second)[0] && score(best)[1] === score(second)[1];
    if (best === undefined || (tie && combinator.keyword === 'oneOf')) {
      kept = kept.filter((error) => !inside(error));
      continue;
    }
    // Of equally close anyOf branches, the last: they go from the particular to the general.
    const chosen = tie ? (ranked.filter((branch) => score(branch)[0] === score(best)[0] && score(branch)[1] === score(best)[1]).at(-1) as ErrorObject[]) : best;
    kept = kept.filter((error) => error !== combinator && (!inside(error) || chosen.includes(error)));
  }
  return kept;
}

/** An object with a `const` member that differs (`kty: "OKP"`) is another kind of object: one issue at it. */
function collapseKinds(errors: ErrorObject[]): ErrorObject[] {
  let kept = errors;
  for (const error of errors) {
    if (error.keyword !== 'const' || !/\/properties\/[^/]+\/const$/.test(error.schemaPath) || !kept.includes(error)) continue;
    const object = error.instancePath.slice(0, error.instancePath.lastIndexOf('/'));
    const objectSchemaPath = error.schemaPath.replace(/\/properties\/[^/]+\/const$/, '');
    const under = (other: ErrorObject) => (other.instancePath === object || other.instancePath.startsWith(`${object}/`)) && other.schemaPath.startsWith(objectSchemaPath);
    const description = kept.find((other) => other.instancePath === object && under(other))?.parentSchema?.description;
    const replacement: ErrorObject = { ...error, keyword: 'kind', instancePath: object, params: { description }, schemaPath: objectSchemaPath };
    kept = [...kept.filter((other) => !under(other)), replacement];
  }
  return kept;
}

function describe(error: ErrorObject, place: Place): FieldIssue {
  const params = error.params as Record<string, unknown>;
  const schema = (error.parentSchema ?? {}) as Record<string, unknown>;
  const base = place.in === 'body' ? error.instancePath : '';
  const name = (pointer: string) => (place.in === 'body' ? (pointer === '' ? 'The body' : `The field "${unescape(pointer.slice(pointer.lastIndexOf('/') + 1))}"`) : `The ${place.in} parameter ${place.name}`);
  const at = (code: RequestIssueCode, message: string, pointer = base): FieldIssue => ({ pointer, code, message });
  switch (error.keyword) {
    case 'required': {
      const missing = String(params.missingProperty);
      const pointer = place.in === 'body' ? `${base}/${escape(missing)}` : '';
      return at('request.required', place.in === 'body' ? `${name(pointer)} is required.` : `The ${place.in} parameter ${place.name} is required.`, pointer);
    }
    case 'additionalProperties': {
      const extra = String(params.additionalProperty);
      const allowed = Object.keys((schema.properties ?? {}) as object);
      const likely = suggest(extra, allowed);
      const hint = likely === undefined ? '' : ` Did you mean "${likely}"?`;
      const list = allowed.length > 0 ? ` Allowed: ${allowed.join(', ')}.` : ' It takes no fields.';
      return at('request.unknown_field', `Unknown field "${extra}".${hint}${list}`, place.in === 'body' ? `${base}/${escape(extra)}` : '');
    }
    case 'type':
      return at('request.type', `${name(base)} must be ${typeName(params.type)}.`);
    case 'const':
      return at('request.enum', `${name(base)} must be ${JSON.stringify(params.allowedValue)}.`);
    case 'enum':
      return at('request.enum', `${name(base)} must be one of ${(params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(', ')}.`);
    case 'kind':
      return at('request.type', `${name(base)} is not the kind of value it must be${typeof params.description === 'string' ? `: ${params.description.replace(/\.$/, '')}` : ''}.`);
    case 'pattern':
      if (typeof error.data === 'string' && FORBIDDEN.test(error.data)) {
        return at('request.text', `${name(base)} holds a NUL character or a lone surrogate (U+D800 to U+DFFF), which the hub does not store; remove it.`);
      }
      return at('request.pattern', `${name(base)} ${typeof schema['x-pattern-hint'] === 'string' ? schema['x-pattern-hint'] : `must match ${String(params.pattern)}`}.`);
    case 'maxProperties':
      if (params.limit === 0) return at('request.type', `${name(base)} must be empty: send no body, an empty body, or {}.`);
      return at('request.too_long', `${name(base)} may have at most ${String(params.limit)} members.`);
    case 'maxLength':
      return at('request.too_long', `${name(base)} may be at most ${String(params.limit)} characters long.`);
    case 'maxItems':
      return at('request.too_long', `${name(base)} may have at most ${String(params.limit)} items.`);
    case 'minLength':
      return at('request.too_short', `${name(base)} must be at least ${String(params.limit)} character${params.limit === 1 ? '' : 's'} long.`);
    case 'minItems':
      return at('request.too_short', `${name(base)} must have at least ${String(params.limit)} item${params.limit === 1 ? '' : 's'}.`);
    case 'format':
      return at('request.format', `${name(base)} must be ${params.format === 'uuid' ? 'a UUID' : `a ${String(params.format)}`}.`);
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return at('request.range', `${name(base)} must be ${String(params.comparison)} ${String(params.limit)}.`);
    default:
      return at('request.type', `${name(base)} ${error.message ?? 'is not allowed'}.`);
  }
}

function typeName(type: unknown): string {
  const names: Record<string, string> = { string: 'a string', integer: 'an integer', number: 'a number', boolean: 'a boolean', object: 'a JSON object', array: 'a list', null: 'null' };
  const types = Array.isArray(type) ? type : String(type).split(',');
  return types.map((each) => names[String(each)] ?? String(each)).join(' or ');
}

function escape(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

function unescape(segment: string): string {
  return segment.replaceAll('~1', '/').replaceAll('~0', '~');
}
