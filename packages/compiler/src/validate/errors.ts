import { closest } from '@hub/schemas';
import type { ErrorObject } from 'ajv';
import type { IssueCollector, Message } from '../issues/collect.js';
import type { IssueCode } from '../issues/codes.js';
import { joinPointer } from '../issues/issue.js';
import { hint, listSome } from '../issues/suggest.js';
import { locate } from '../source/locate.js';
import { covered, type ParsedDocument } from '../source/yaml.js';
import { validatorFor, type DocumentKind } from './schemas.js';

/**
 * Validates a parsed document against its schema and reports each failure as an issue, except
 * where the YAML itself was already reported. Records the pointers it rejected in `parsed`.
 */
export function validateDocument(kind: DocumentKind, parsed: ParsedDocument, issues: IssueCollector): boolean {
  const validate = validatorFor(kind);
  if (validate(parsed.value)) return true;
  const add: IssueCollector['add'] = (code, message, pointer, where) => {
    if (covered(parsed.flagged, pointer)) return;
    parsed.rejected.add(pointer);
    issues.add(code, message, pointer, where);
  };
  for (const error of collapse(validate.errors ?? [])) report(error, parsed, { add } as IssueCollector);
  return false;
}

/**
 * Drops ajv's echo errors: the propertyNames wrapper (its inner error names the key) and, should a
 * schema ever use oneOf/anyOf, every branch but the one that came closest.
 */
function collapse(errors: ErrorObject[]): ErrorObject[] {
  let kept = errors.filter((error) => error.keyword !== 'propertyNames');
  for (const combinator of kept.filter((e) => e.keyword === 'oneOf' || e.keyword === 'anyOf')) {
    const prefix = `${combinator.schemaPath}/`;
    const byBranch = new Map<string, ErrorObject[]>();
    for (const error of kept) {
      if (!error.schemaPath.startsWith(prefix)) continue;
      const branch = error.schemaPath.slice(prefix.length).split('/')[0] as string;
      byBranch.set(branch, [...(byBranch.get(branch) ?? []), error]);
    }
    const best = [...byBranch.values()].sort((a, b) => a.length - b.length)[0] ?? [];
    kept = kept.filter((e) => e === combinator || !e.schemaPath.startsWith(prefix) || best.includes(e));
    if (best.length > 0) kept = kept.filter((e) => e !== combinator);
  }
  return kept;
}

const NAME_RULES: Record<string, string> = {
  '^[a-z0-9][a-z0-9-]{0,62}$': 'use 1 to 63 lowercase letters, digits and hyphens, starting with a letter or digit',
  '^[a-z][a-z0-9_]{0,62}$': 'use 1 to 63 lowercase letters, digits and underscores, starting with a letter',
  '^[a-z0-9][a-z0-9._-]{0,62}$':
    'use 1 to 63 lowercase letters, digits, dots, underscores and hyphens, starting with a letter or digit',
};

function report(error: ErrorObject, parsed: ParsedDocument, issues: IssueCollector): void {
  const path = error.instancePath;
  const at = (code: IssueCode, message: Message, pointer = path, key = false) =>
    issues.add(code, message, pointer, locate(parsed, pointer, { key }));
  const params = error.params as Record<string, unknown>;
  const parent = (error.parentSchema ?? {}) as Record<string, unknown>;
  const known = Object.keys((parent.properties ?? {}) as object);
  if (error.propertyName !== undefined) {
    const name = error.propertyName;
    const rule = NAME_RULES[String(params.pattern)] ?? 'the name is not allowed here';
    at('schema.name', `"${name}" is not a valid name: ${rule}.`, joinPointer(path, name), true);
    return;
  }
  switch (error.keyword) {
    case 'required': {
      const missing = String(params.missingProperty);
      issues.add(
        'schema.required',
        `The key "${missing}" is required here.`,
        joinPointer(path, missing),
        locate(parsed, path),
      );
      return;
    }
    case 'additionalProperties': {
      const key = String(params.additionalProperty);
      const allowed = known.length > 0 ? ` Allowed keys: ${known.join(', ')}.` : '';
      at(
        'schema.unknown_key',
        () => {
          const suggestion = closest(key, known);
          return { message: `Unknown key "${key}"${hint(suggestion) || '.'}${allowed}`, suggestion };
        },
        joinPointer(path, key),
        true,
      );
      return;
    }
    case 'type':
      at('schema.type', `Expected ${describeTypes(params.type)}, got ${describeValue(error.data)}.`);
      return;
    case 'enum': {
      const allowed = (params.allowedValues as unknown[]).map(String);
      const value = String(error.data);
      at('schema.enum', () => {
        const suggestion = closest(value, allowed);
        return {
          message: `"${value}" is not allowed${hint(suggestion) || '.'} Allowed: ${listSome(allowed)}.`,
          suggestion,
        };
      });
      return;
    }
    case 'pattern': {
      const pattern = String(params.pattern);
      const value = String(error.data);
      if (/\[dhms\]/.test(pattern)) {
        at(
          'schema.duration',
          `"${value}" is not a duration: write <integer><unit> parts with units d, h, m, s in that order, above zero (90m, 1h30m).`,
        );
      } else if (NAME_RULES[pattern] !== undefined) {
        at('schema.name', `"${value}" is not a valid name: ${NAME_RULES[pattern]}.`);
      } else {
        at('schema.pattern', 'The value has a control character, or is too long.');
      }
      return;
    }
    case 'minItems':
    case 'minLength':
    case 'minProperties':
      at('schema.too_few', tooFewMessage(error.keyword, Number(params.limit), known));
      return;
    case 'maxItems':
    case 'maxLength':
    case 'maxProperties':
      at('schema.too_many', tooManyMessage(error.keyword, Number(params.limit), known));
      return;
    case 'uniqueItems':
      // ajv names the pair (i, j) in either order; the later item is the repeat.
      const [first, repeat] = [Number(params.i), Number(params.j)].sort((a, b) => a - b) as [number, number];
      at(
        'schema.not_unique',
        `Item ${repeat} repeats item ${first}; each value may appear once.`,
        joinPointer(path, repeat),
      );
      return;
    default:
      at('schema.type', `The value does not match the schema (${error.keyword}).`);
  }
}

function tooFewMessage(keyword: string, limit: number, known: string[]): string {
  if (keyword === 'minProperties' && known.length > 0) return `Give at least ${limit} of: ${known.join(', ')}.`;
  if (keyword === 'minLength') return `The value must be at least ${limit} character${limit === 1 ? '' : 's'} long.`;
  return `Give at least ${limit} ${keyword === 'minItems' ? 'item' : 'entry'}${limit === 1 ? '' : 's'}.`;
}

function tooManyMessage(keyword: string, limit: number, known: string[]): string {
  if (keyword === 'maxProperties' && known.length > 0) return `Give only ${limit} of: ${known.join(', ')}.`;
  if (keyword === 'maxLength') return `The value may be at most ${limit} characters long.`;
  return `Give at most ${limit} ${keyword === 'maxItems' ? 'item' : 'entry'}${limit === 1 ? '' : 's'}.`;
}

const TYPE_NAMES: Record<string, string> = {
  object: 'a mapping',
  array: 'a list',
  string: 'a string',
  number: 'a number',
  integer: 'an integer',
  boolean: 'a boolean',
  null: 'nothing',
};

function describeTypes(types: unknown): string {
  const list = String(types).split(',');
  return list.map((type) => TYPE_NAMES[type] ?? type).join(' or ');
}

function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return `${TYPE_NAMES[typeof value] ?? typeof value} (${JSON.stringify(value)})`;
}
