import { suggest } from '@hub/compiler';
import type { ErrorObject } from 'ajv';
import type { FieldIssue } from '../problems/problem.js';
import type { RequestIssueCode } from '../problems/request-issues.js';

/** A NUL character or a lone surrogate: what PostgreSQL cannot store, in any string. */
const FORBIDDEN = /[\u0000\ud800-\udfff]/u;

/** Where the value that failed sits: the body (pointers into it), or a named parameter. */
export type Place = { in: 'body' } | { in: 'path' | 'query'; name: string };

/** What the collapse needs of the validator: a branch checked on its own, and a schema by its error's path. */
export interface SchemaAccess {
  /** The errors of `data` against one branch of a combinator (as the error's `schema` holds it). */
  branch(schema: unknown, data: unknown): ErrorObject[];
  /** The schema an error's `schemaPath` points into, up to `upTo` (a prefix of it). */
  schemaAt(schemaPath: string): Record<string, unknown> | undefined;
}

/**
 * The validator's errors as field issues: one function for every request (STYLE.md, practice 4).
 * A `oneOf`/`anyOf` is collapsed to the branch that came closest (checked on its own; a tie
 * between `oneOf` branches is one `request.shape` issue, between `anyOf` branches the first wins), an object with `const` members (a
 * JWK) is one value, reported once at itself, unknown members get a "did you mean", and nothing
 * is said twice.
 */
export function toIssues(errors: readonly ErrorObject[], place: Place, access: SchemaAccess): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const seen = new Set<string>();
  for (const error of collapseKinds(collapseCombinators([...errors], access), access)) {
    const issue = describe(error, place);
    const key = `${issue.pointer}\u0000${issue.code}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push(issue);
  }
  return issues;
}

const under = (path: string, parent: string) => path === parent || path.startsWith(`${parent}/`);

function collapseCombinators(errors: ErrorObject[], access: SchemaAccess): ErrorObject[] {
  const combinators = errors.filter((error) => error.keyword === 'oneOf' || error.keyword === 'anyOf');
  const outer = combinators.filter(
    (error) =>
      !combinators.some(
        (other) =>
          other !== error && other.instancePath !== error.instancePath && under(error.instancePath, other.instancePath),
      ),
  );
  let kept = errors;
  for (const combinator of outer) {
    const at = combinator.instancePath;
    const branches = (Array.isArray(combinator.schema) ? combinator.schema : []).map((branch) =>
      collapseCombinators(
        access
          .branch(branch, combinator.data)
          .map((error) => ({ ...error, instancePath: `${at}${error.instancePath}` })),
        access,
      ),
    );
    // Closest: the fewest errors about the value's own members (missing, unknown), then the fewest in all.
    const score = (branch: ErrorObject[]) =>
      branch.filter((error) => error.instancePath === at).length * 1_000_000 + branch.length;
    const best = Math.min(...branches.map(score));
    const closest = branches.filter((branch) => score(branch) === best);
    let replacement: ErrorObject[];
    if (closest.length > 1 && combinator.keyword === 'oneOf') replacement = [{ ...combinator, keyword: 'shape' }];
    // Of equally close anyOf branches, the first: the general one comes first (a bundle file).
    else replacement = closest[0] ?? [combinator];
    const index = kept.indexOf(combinator);
    const before = kept.slice(0, index).filter((error) => !under(error.instancePath, at));
    const after = kept.slice(index + 1).filter((error) => !under(error.instancePath, at));
    kept = [...before, ...replacement, ...after];
  }
  return kept;
}

/** An object with a `const` member (`kty: "OKP"`) is one value: whatever is wrong inside it is one issue at it. */
function collapseKinds(errors: ErrorObject[], access: SchemaAccess): ErrorObject[] {
  const kinds = new Map<string, ErrorObject>();
  const kept: ErrorObject[] = [];
  for (const error of errors) {
    const kind = kindOf(error, access);
    if (kind === undefined) {
      kept.push(error);
      continue;
    }
    if (kinds.has(kind.instancePath)) continue;
    kinds.set(kind.instancePath, kind);
    kept.push(kind);
  }
  return kept;
}

/** Per schema access, per schema path: where the error's one-value object is, if it is in one. */
const kinds = new WeakMap<SchemaAccess, Map<string, { up: number; description: unknown } | null>>();

function kindOf(error: ErrorObject, access: SchemaAccess): ErrorObject | undefined {
  let known = kinds.get(access);
  if (known === undefined) kinds.set(access, (known = new Map()));
  let kind = known.get(error.schemaPath);
  if (kind === undefined) {
    kind = findKind(error.schemaPath, access);
    known.set(error.schemaPath, kind);
  }
  if (kind === null) return undefined;
  const instancePath =
    kind.up === 0 ? error.instancePath : error.instancePath.slice(0, error.instancePath.lastIndexOf('/'));
  return { ...error, keyword: 'kind', instancePath, params: { description: kind.description } };
}

/** The object whose member failed (…/properties/<name>/<keyword>: up 1), or the object itself (…/required: up 0), if it has `const` members. */
function findKind(schemaPath: string, access: SchemaAccess): { up: number; description: unknown } | null {
  const hasConst = (schema: Record<string, unknown> | undefined) =>
    Object.values((schema?.properties ?? {}) as Record<string, unknown>).some(
      (property) => property !== null && typeof property === 'object' && 'const' in property,
    );
  const member = /^(.*)\/properties\/[^/]+\/[^/]+$/.exec(schemaPath);
  const candidates: [string, number][] = [];
  if (member !== null) candidates.push([member[1] as string, 1]);
  candidates.push([schemaPath.slice(0, schemaPath.lastIndexOf('/')), 0]);
  for (const [path, up] of candidates) {
    const schema = access.schemaAt(path);
    if (hasConst(schema)) return { up, description: schema?.description };
  }
  return null;
}

function describe(error: ErrorObject, place: Place): FieldIssue {
  const params = error.params as Record<string, unknown>;
  const schema = (error.parentSchema ?? {}) as Record<string, unknown>;
  const base = place.in === 'body' ? error.instancePath : '';
  const name = (pointer: string) =>
    place.in === 'body' ? fieldName(pointer) : `The ${place.in} parameter ${place.name}`;
  const at = (code: RequestIssueCode, message: string, pointer = base): FieldIssue => ({ pointer, code, message });
  switch (error.keyword) {
    case 'required': {
      // A field of the body is pointed at; a member missing deeper, at the object that lacks it.
      const missing = String(params.missingProperty);
      if (place.in !== 'body') return at('request.required', `The ${place.in} parameter ${place.name} is required.`);
      if (base === '') return at('request.required', `The field "${missing}" is required.`, `/${escape(missing)}`);
      return at('request.required', `${name(base)} lacks its required member "${missing}".`);
    }
    case 'shape':
      return at(
        'request.shape',
        `${name(base)} matches none of the shapes it may take${typeof schema.description === 'string' ? `: ${lowerFirst(schema.description).replace(/\.$/, '')}` : ''}.`,
      );
    case 'additionalProperties': {
      const extra = String(params.additionalProperty);
      const allowed = Object.keys((schema.properties ?? {}) as object);
      const likely = suggest(extra, allowed);
      const hint = likely === undefined ? '' : ` Did you mean "${likely}"?`;
      const list = allowed.length > 0 ? ` Allowed: ${allowed.join(', ')}.` : ' It takes no fields.';
      return at(
        'request.unknown_field',
        `Unknown field "${extra}".${hint}${list}`,
        place.in === 'body' ? `${base}/${escape(extra)}` : '',
      );
    }
    case 'type':
      return at('request.type', `${name(base)} must be ${typeName(params.type)}.`);
    case 'const':
      return at('request.enum', `${name(base)} must be ${JSON.stringify(params.allowedValue)}.`);
    case 'enum':
      return at(
        'request.enum',
        `${name(base)} must be one of ${(params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(', ')}.`,
      );
    case 'kind':
      return at(
        'request.type',
        `${name(base)} is not the kind of value it must be${typeof params.description === 'string' ? `: ${lowerFirst(params.description).replace(/\.$/, '')}` : ''}.`,
      );
    case 'pattern':
      if (typeof error.data === 'string' && FORBIDDEN.test(error.data)) {
        return at(
          'request.text',
          `${name(base)} holds a NUL character or a lone surrogate (U+D800 to U+DFFF), which the hub does not store; remove it.`,
        );
      }
      return at(
        'request.pattern',
        `${name(base)} ${typeof schema['x-pattern-hint'] === 'string' ? schema['x-pattern-hint'] : `must match ${String(params.pattern)}`}.`,
      );
    case 'maxProperties':
      if (params.limit === 0)
        return at('request.type', `${name(base)} must be empty: send no body, an empty body, or {}.`);
      return at('request.too_long', `${name(base)} may have at most ${String(params.limit)} members.`);
    case 'maxLength':
      return at('request.too_long', `${name(base)} may be at most ${String(params.limit)} characters long.`);
    case 'maxItems':
      return at('request.too_long', `${name(base)} may have at most ${String(params.limit)} items.`);
    case 'minLength':
      return at(
        'request.too_short',
        `${name(base)} must be at least ${String(params.limit)} character${params.limit === 1 ? '' : 's'} long.`,
      );
    case 'minItems':
      return at(
        'request.too_short',
        `${name(base)} must have at least ${String(params.limit)} item${params.limit === 1 ? '' : 's'}.`,
      );
    case 'format':
      return at(
        'request.format',
        `${name(base)} must be ${params.format === 'uuid' ? 'a UUID' : `a ${String(params.format)}`}.`,
      );
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return at('request.range', `${name(base)} must be ${String(params.comparison)} ${String(params.limit)}.`);
    default:
      return at('request.type', `${name(base)} ${error.message ?? 'is not allowed'}.`);
  }
}

/** How a message names the value at a pointer into the body: the body, a field, or an item of a list. */
function fieldName(pointer: string): string {
  if (pointer === '') return 'The body';
  const segments = pointer.split('/').slice(1).map(unescape);
  const last = segments.at(-1) as string;
  if (/^\d+$/.test(last))
    return segments.length === 1 ? `Item ${last}` : `Item ${last} of "${segments.at(-2) as string}"`;
  return `The field "${last}"`;
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

function typeName(type: unknown): string {
  const names: Record<string, string> = {
    string: 'a string',
    integer: 'an integer',
    number: 'a number',
    boolean: 'a boolean',
    object: 'a JSON object',
    array: 'a list',
    null: 'null',
  };
  const types = Array.isArray(type) ? type : String(type).split(',');
  return types.map((each) => names[String(each)] ?? String(each)).join(' or ');
}

function escape(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

function unescape(segment: string): string {
  return segment.replaceAll('~1', '/').replaceAll('~0', '~');
}
