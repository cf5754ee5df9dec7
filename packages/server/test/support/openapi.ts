// Checks requests and responses against the hub's OpenAPI document, with ajv (JSON Schema
// 2020-12, OpenAPI 3.1's dialect): finds the operation of a method and path, then the schema of
// its request body or of the response with a given status, and validates a body against it.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Answer } from './client.js';

const DOCUMENT_ID = 'urn:hub:openapi';
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

type Node = Record<string, unknown>;
export type OpenApiDocument = Record<string, unknown>;

/** The bundled document as committed (@hub/schemas/openapi.json): what the hub serves. */
export function committedDocument(): OpenApiDocument {
  return JSON.parse(
    readFileSync(createRequire(import.meta.url).resolve('@hub/schemas/openapi.json'), 'utf8'),
  ) as OpenApiDocument;
}

export interface Operation {
  method: string;
  /** The path as the document has it (a template, where there are parameters). */
  path: string;
  /** JSON Pointer of the operation in the document. */
  pointer: string;
  operation: Node;
}

export class OpenApiChecker {
  readonly document: OpenApiDocument;
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(document: OpenApiDocument = committedDocument()) {
    this.document = document;
    // strict: false, for OpenAPI's own keywords (example, discriminator, x-…) in schemas.
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    this.ajv.addFormat('uuid', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
    this.ajv.addFormat(
      'date-time',
      (value: string) =>
        /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)$/i.test(value) &&
        !Number.isNaN(Date.parse(value)),
    );
    this.ajv.addFormat('uri', /^[a-z][a-z0-9+.-]*:[^\s]*$/i);
    this.ajv.addFormat('int32', {
      type: 'number',
      validate: (value: number) => Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 31,
    });
    this.ajv.addFormat('int64', { type: 'number', validate: (value: number) => Number.isSafeInteger(value) });
    this.ajv.addSchema({ ...structuredClone(document), $id: DOCUMENT_ID });
  }

  /** Every operation of the document. */
  operations(): Operation[] {
    const paths = this.document.paths as Record<string, Node>;
    return Object.entries(paths).flatMap(([path, item]) =>
      METHODS.filter((method) => item[method] !== undefined).map((method) => ({
        method: method.toUpperCase(),
        path,
        pointer: `/paths/${escape(path)}/${method}`,
        operation: item[method] as Node,
      })),
    );
  }

  /** The operation that answers `method` `path` (a concrete path, query string allowed). */
  operation(method: string, path: string): Operation | undefined {
    const concrete = path.split('?')[0] as string;
    return this.operations().find(
      (candidate) => candidate.method === method.toUpperCase() && templateRegex(candidate.path).test(concrete),
    );
  }

  /** A node of the document by JSON Pointer. */
  at(pointer: string): unknown {
    let node: unknown = this.document;
    for (const part of pointer.split('/').slice(1)) {
      if (node === null || typeof node !== 'object') return undefined;
      node = (node as Node)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    }
    return node;
  }

  /** Validates a value against the schema at `pointer` (a JSON Pointer into the document). */
  validate(pointer: string, value: unknown): string[] {
    let validator = this.validators.get(pointer);
    if (validator === undefined) {
      validator = this.ajv.compile({ $ref: `${DOCUMENT_ID}#${pointer.split('/').map(encodeURIComponent).join('/')}` });
      this.validators.set(pointer, validator);
    }
    return validator(value) ? [] : (validator.errors ?? []).map(describe);
  }

  /**
   * What is wrong with a request body, for the document (empty when nothing is): `body`
   * undefined is no body at all.
   */
  checkRequest(method: string, path: string, body: unknown, contentType = 'application/json'): string[] {
    const found = this.operation(method, path);
    if (found === undefined) return [`no operation ${method} ${path} in the document`];
    const { node: requestBody, pointer } = this.follow(found.operation.requestBody, `${found.pointer}/requestBody`);
    if (requestBody === undefined) return body === undefined ? [] : [`${method} ${path} takes no body`];
    if (body === undefined) return requestBody.required === true ? [`${method} ${path} requires a body`] : [];
    const content = (requestBody.content ?? {}) as Node;
    const media = mediaType(contentType);
    if (content[media] === undefined)
      return [`${method} ${path} takes ${Object.keys(content).join(', ')}, not ${media}`];
    return this.validate(`${pointer}/content/${escape(media)}/schema`, body);
  }

  /**
   * What is wrong with a response, for the document (empty when nothing is): the operation
   * must list the status (or its range, or default), the body must match that response's
   * schema for its media type, and its required headers must be there and match theirs.
   */
  checkResponse(method: string, path: string, status: number, body: unknown, headers?: Headers): string[] {
    const found = this.operation(method, path);
    if (found === undefined) return [`no operation ${method} ${path} in the document`];
    const responses = found.operation.responses as Node;
    const key = [String(status), `${String(status).charAt(0)}XX`, 'default'].find(
      (candidate) => responses[candidate] !== undefined,
    );
    if (key === undefined)
      return [`${method} ${path} does not document the status ${status} (only ${Object.keys(responses).join(', ')})`];
    const { node: response, pointer } = this.follow(responses[key], `${found.pointer}/responses/${key}`);
    if (response === undefined) return [`the response ${key} of ${method} ${path} does not resolve`];
    const errors: string[] = [];
    const content = response.content as Node | undefined;
    if (content === undefined) {
      if (body !== undefined) errors.push(`${status} of ${method} ${path} has no body in the document`);
    } else {
      const declared = Object.keys(content);
      const given = headers?.get('content-type');
      const media =
        given === undefined || given === null ? (declared.length === 1 ? declared[0] : undefined) : mediaType(given);
      if (media === undefined || content[media] === undefined) {
        errors.push(`${status} of ${method} ${path} is ${declared.join(', ')} in the document, not ${String(given)}`);
      } else {
        errors.push(
          ...this.validate(`${pointer}/content/${escape(media)}/schema`, body).map((error) => `body: ${error}`),
        );
      }
    }
    if (headers !== undefined) {
      for (const [name, value] of Object.entries((response.headers ?? {}) as Node)) {
        const { node: header, pointer: headerPointer } = this.follow(value, `${pointer}/headers/${escape(name)}`);
        const actual = headers.get(name);
        if (actual === null) {
          if (header?.required === true) errors.push(`the header ${name} is missing`);
        } else if (header?.schema !== undefined) {
          errors.push(...this.validate(`${headerPointer}/schema`, actual).map((error) => `header ${name}: ${error}`));
        }
      }
    }
    return errors;
  }

  /** checkResponse for an answer of support/client.ts. */
  checkAnswer(method: string, path: string, answer: Answer): string[] {
    return this.checkResponse(
      method,
      path,
      answer.status,
      answer.text === '' ? undefined : answer.body,
      answer.headers,
    );
  }

  /** A node, or what its $ref points at, with its pointer. */
  private follow(node: unknown, pointer: string): { node: Node | undefined; pointer: string } {
    let current = node;
    let at = pointer;
    for (
      let hops = 0;
      hops < 10 && current !== null && typeof current === 'object' && typeof (current as Node).$ref === 'string';
      hops++
    ) {
      const ref = (current as Node).$ref as string;
      if (!ref.startsWith('#/')) throw new Error(`only local references are supported: ${ref}`);
      at = ref.slice(1);
      current = this.at(at);
    }
    return { node: current as Node | undefined, pointer: at };
  }
}

/** One checker for the whole test run: compiling the document's schemas takes a moment. */
let shared: OpenApiChecker | undefined;
export function openApi(): OpenApiChecker {
  shared ??= new OpenApiChecker();
  return shared;
}

function escape(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function mediaType(contentType: string): string {
  return (contentType.split(';')[0] as string).trim().toLowerCase();
}

function templateRegex(template: string): RegExp {
  const pattern = template
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${pattern}/?$`);
}

function describe(error: ErrorObject): string {
  const extra = error.keyword === 'additionalProperties' ? ` (${String(error.params.additionalProperty)})` : '';
  return `${error.instancePath || '/'} ${error.message ?? error.keyword}${extra} [${error.schemaPath}]`;
}
