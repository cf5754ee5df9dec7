import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import { HttpProblem, type FieldIssue } from '../problems/problem.js';
import { escape, type Node, type OperationSpec, type Parameter } from './contract.js';
import { documentAjv } from './ajv.js';
import { toIssues, type SchemaAccess } from './issues.js';

const DOCUMENT_ID = 'urn:hub:openapi';

/** What a request carries, as the handler receives it once it is valid. */
export interface RequestInput {
  body: unknown;
  params: Record<string, unknown>;
  query: Record<string, unknown>;
}

/** One operation's request checks, compiled once from the document. */
export interface RequestValidator {
  /** The input, parameters coerced to their types; or a 400 problem with every issue. */
  check(input: { body: unknown; params: Record<string, string>; query: Record<string, unknown> }): RequestInput;
}

/**
 * The one validator of the hub: ajv (JSON Schema 2020-12, OpenAPI 3.1's dialect) over the bundled
 * document. Requests are checked against their operation's parameters and body schema, responses
 * (in tests) against the response of their status.
 */
export class ContractValidator {
  /** Every error, with its schema: for the issues, once a request has failed. */
  private readonly ajv: Ajv2020;
  /** The first error only: the pass every request takes. */
  private readonly quick: Ajv2020;
  private readonly responses = new Map<string, ValidateFunction | null>();
  private readonly branches = new Map<string, ValidateFunction>();

  constructor(private readonly document: Node) {
    // verbose: the errors carry their schema, which the issues quote (allowed members, hints).
    this.ajv = documentAjv(true);
    this.ajv.addSchema(document, DOCUMENT_ID);
    this.quick = documentAjv(false);
    this.quick.addSchema(document, DOCUMENT_ID);
  }

  /** A schema of the document by JSON Pointer, compiled (`quick`: to say yes or no, and no more). */
  compile(pointer: string, quick = false): ValidateFunction {
    return (quick ? this.quick : this.ajv).compile({
      $ref: `${DOCUMENT_ID}#${pointer.split('/').map(encodeURIComponent).join('/')}`,
    });
  }

  /** What the issues need of the document, for a schema compiled from `root` (a JSON Pointer). */
  access(root: string): SchemaAccess {
    const schemas = new Map<string, Record<string, unknown> | null>();
    return {
      branch: (schema, data) => {
        const key = JSON.stringify(schema);
        let validate = this.branches.get(key);
        if (validate === undefined) {
          validate = this.ajv.compile(absolute(schema) as object);
          this.branches.set(key, validate);
        }
        return validate(data) ? [] : [...(validate.errors ?? [])];
      },
      // ajv gives schema paths from the document's root (with its id, or for referenced
      // components), else from the compiled schema's; looked up once each.
      schemaAt: (schemaPath) => {
        let found = schemas.get(schemaPath);
        if (found === undefined) {
          const path = schemaPath.slice(schemaPath.indexOf('#') + 1);
          const absolute = schemaPath.startsWith(DOCUMENT_ID) || path.startsWith('/components/');
          const node = this.at(absolute ? path : `${root}${path}`);
          found = node !== null && typeof node === 'object' ? (node as Record<string, unknown>) : null;
          schemas.set(schemaPath, found);
        }
        return found ?? undefined;
      },
    };
  }

  request(operation: OperationSpec): RequestValidator {
    const body =
      operation.body === undefined
        ? undefined
        : { quick: this.compile(operation.body.pointer, true), detailed: this.compile(operation.body.pointer) };
    const bodyAccess = operation.body === undefined ? undefined : this.access(operation.body.pointer);
    const path = this.parameters(operation.parameters.filter((parameter) => parameter.in === 'path'));
    const query = this.parameters(operation.parameters.filter((parameter) => parameter.in === 'query'));
    return {
      check: (input) => {
        const issues: FieldIssue[] = [];
        const params = path.check(input.params, 'path', issues);
        const queryValues = query.check(input.query, 'query', issues);
        if (operation.body !== undefined && body !== undefined) {
          if (input.body === undefined) {
            if (operation.body.required)
              issues.push({
                pointer: '',
                code: 'request.required',
                message: 'The operation takes a JSON body; send one.',
              });
          } else if (!body.quick(input.body) && !body.detailed(input.body)) {
            issues.push(...toIssues(body.detailed.errors ?? [], { in: 'body' }, bodyAccess as SchemaAccess));
          }
        }
        if (issues.length > 0)
          throw new HttpProblem('invalid_request', 'The request is not what this operation takes; see issues.', {
            issues,
          });
        return { body: input.body, params, query: queryValues };
      },
    };
  }

  /**
   * What is wrong with a response, for the document: the status must be documented, and a JSON
   * body must match its schema. Empty when nothing is.
   */
  checkResponse(operation: OperationSpec, status: number, mediaType: string | undefined, body: unknown): string[] {
    const responses = ((this.at(operation.pointer) as Node).responses ?? {}) as Node;
    const key = [String(status), `${String(status).charAt(0)}XX`, 'default'].find(
      (candidate) => responses[candidate] !== undefined,
    );
    if (key === undefined) return [`${operation.operationId} does not document the status ${status}`];
    if (mediaType === undefined || !/json$/.test(mediaType)) return [];
    const cacheKey = `${operation.pointer} ${key} ${mediaType}`;
    let validate = this.responses.get(cacheKey);
    if (validate === undefined) {
      const response = this.follow(responses[key] as Node);
      const content = (response.content ?? {}) as Node;
      validate =
        content[mediaType] === undefined
          ? null
          : this.compile(
              `${this.pointerOf(responses[key] as Node, `${operation.pointer}/responses/${key}`)}/content/${escape(mediaType)}/schema`,
            );
      this.responses.set(cacheKey, validate);
      if (validate === null) return [`the ${status} of ${operation.operationId} is not ${mediaType} in the document`];
    }
    if (validate === null) return [`the ${status} of ${operation.operationId} is not ${mediaType} in the document`];
    return validate(body)
      ? []
      : (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? error.keyword}`);
  }

  private parameters(list: Parameter[]) {
    const schema = {
      type: 'object',
      properties: Object.fromEntries(list.map((parameter) => [parameter.name, parameter.schema])),
      required: list.filter((parameter) => parameter.required).map((parameter) => parameter.name),
    };
    const validate = list.length === 0 ? undefined : this.ajv.compile(schema);
    const quick = list.length === 0 ? undefined : this.quick.compile(schema);
    const access = this.access('');
    return {
      check: (
        values: Record<string, unknown>,
        where: 'path' | 'query',
        issues: FieldIssue[],
      ): Record<string, unknown> => {
        if (validate === undefined) return {};
        const coerced: Record<string, unknown> = {};
        for (const parameter of list) {
          const value = values[parameter.name];
          if (value !== undefined) coerced[parameter.name] = coerce(value, parameter.schema);
        }
        if (!(quick as ValidateFunction)(coerced) && !validate(coerced)) {
          for (const error of validate.errors ?? []) {
            const name =
              error.keyword === 'required'
                ? String(error.params.missingProperty)
                : (error.instancePath.split('/')[1] ?? '');
            issues.push(
              ...toIssues(
                [{ ...error, instancePath: error.instancePath.replace(/^\/[^/]+/, '') }],
                { in: where, name },
                access,
              ),
            );
          }
        }
        return coerced;
      },
    };
  }

  private at(pointer: string): unknown {
    let node: unknown = this.document;
    for (const part of pointer.split('/').slice(1)) {
      if (node === null || typeof node !== 'object') return undefined;
      node = (node as Node)[decodeURIComponent(part).replaceAll('~1', '/').replaceAll('~0', '~')];
    }
    return node;
  }

  private follow(node: Node): Node {
    return typeof node.$ref === 'string' ? this.follow(this.at(node.$ref.slice(1)) as Node) : node;
  }

  private pointerOf(node: Node, pointer: string): string {
    return typeof node.$ref === 'string'
      ? this.pointerOf(this.at(node.$ref.slice(1)) as Node, node.$ref.slice(1))
      : pointer;
  }
}

/** A schema with its references made absolute, to compile on its own. */
function absolute(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(absolute);
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      key === '$ref' && typeof value === 'string' && value.startsWith('#') ? `${DOCUMENT_ID}${value}` : absolute(value),
    ]),
  );
}

/** A path or query string as the type its schema gives (integers); anything else as it came. */
function coerce(value: unknown, schema: Node): unknown {
  if (
    typeof value === 'string' &&
    (schema.type === 'integer' || schema.type === 'number') &&
    /^-?\d+(\.\d+)?$/.test(value)
  )
    return Number(value);
  return value;
}
