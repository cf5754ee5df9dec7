// GitHub's published REST description (@octokit/openapi): finds the operation of a method and a
// path, checks the path's parameters and the JSON body against it, and lends its examples as
// the starting point of the stand-in's answers.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { jsonSchemaOf, type Json } from './schema.js';

const addFormats = addFormatsModule.default;

export interface Operation {
  operationId: string;
  method: string;
  /** The path as the description has it, e.g. `/repos/{owner}/{repo}/check-runs`. */
  template: string;
  node: Json;
  documentationUrl: string;
}

export type Match =
  { ok: true; operation: Operation; params: Record<string, string | number> } | { ok: false; why: string };

interface Route {
  template: string;
  segments: string[];
  item: Json;
}

const loaded = new Map<string, GitHubDescription>();

/** The description of github.com, or of the newest GitHub Enterprise Server 3.x in the package (if any). */
export function githubDescription(enterprise: boolean): GitHubDescription {
  const folder = join(dirname(createRequire(import.meta.url).resolve('@octokit/openapi/package.json')), 'generated');
  const file = enterprise ? newestEnterprise(readdirSync(folder)) : 'api.github.com.json';
  let description = loaded.get(file);
  if (description === undefined) {
    description = new GitHubDescription(file, JSON.parse(readFileSync(join(folder, file), 'utf8')) as Json);
    loaded.set(file, description);
  }
  return description;
}

function newestEnterprise(files: string[]): string {
  const versions = files
    .map((file) => /^ghes-3\.(\d+)\.json$/.exec(file))
    .filter((match) => match !== null)
    .map((match) => Number(match[1]))
    .sort((a, b) => b - a);
  // Without a GHES description, github.com's is the nearest GitHub publishes.
  return versions[0] === undefined ? 'api.github.com.json' : `ghes-3.${versions[0]}.json`;
}

export class GitHubDescription {
  readonly file: string;
  readonly document: Json;
  private readonly routes: Route[];
  private readonly ajv = new Ajv2020({ strict: false, allErrors: false });
  private readonly validators = new Map<unknown, ValidateFunction>();

  constructor(file: string, document: Json) {
    this.file = file;
    this.document = document;
    addFormats(this.ajv);
    this.routes = Object.entries(document.paths as Record<string, Json>).map(([template, item]) => ({
      template,
      segments: template.split('/').slice(1),
      item,
    }));
  }

  /** The operation that `method` and `path` (without the API's base) name, with typed path parameters. */
  match(method: string, path: string): Match {
    const segments = path.split('/').slice(1).map(decodeSegment);
    const candidates = this.routes
      .filter((route) => fits(route.segments, segments))
      .sort((a, b) => specificity(b.segments) - specificity(a.segments));
    const route = candidates.find((candidate) => candidate.item[method.toLowerCase()] !== undefined);
    if (route === undefined) {
      const why = candidates.length > 0 ? `${method} is no operation of ${candidates[0]!.template}` : 'no such path';
      return { ok: false, why: `${why} in ${this.file}` };
    }
    const node = route.item[method.toLowerCase()] as Json;
    const operation: Operation = {
      operationId: String(node.operationId),
      method: method.toUpperCase(),
      template: route.template,
      node,
      documentationUrl: String((node.externalDocs as Json | undefined)?.url ?? 'https://docs.github.com/rest'),
    };
    const params: Record<string, string | number> = {};
    for (const parameter of this.parameters(route, node).filter((p) => p.in === 'path')) {
      const raw = segments[route.segments.indexOf(`{${String(parameter.name)}}`)] ?? '';
      const schema = (parameter.schema ?? {}) as Json;
      const value = schema.type === 'integer' && /^-?\d+$/.test(raw) ? Number(raw) : raw;
      const errors = this.check(schema, value);
      if (errors !== undefined) return { ok: false, why: `path parameter ${String(parameter.name)}: ${errors}` };
      params[String(parameter.name)] = value;
    }
    return { ok: true, operation, params };
  }

  /** Why `body` is not what the operation accepts, or undefined when it is. */
  bodyErrors(operation: Operation, body: unknown): string | undefined {
    const requestBody = this.resolve(operation.node.requestBody) as Json | undefined;
    if (requestBody === undefined) return undefined;
    if (body === undefined) return requestBody.required === true ? 'a request body is required' : undefined;
    const content = (requestBody.content ?? {}) as Record<string, Json>;
    const media = content['application/json'];
    if (media === undefined) return `the body must be one of ${Object.keys(content).join(', ')}`;
    return this.check(media.schema, body);
  }

  /** Why `body` is not the operation's documented answer with `status`, or undefined when it is. */
  responseErrors(operation: Operation, status: number, body: unknown): string | undefined {
    const media = this.responseMedia(operation, status);
    if (media === undefined) return `the description documents no ${status} answer with a JSON body`;
    return this.check(media.schema, body);
  }

  /** Why `payload` is not what the description's `x-webhooks` says `event` with `action` carries, or undefined. */
  webhookErrors(event: string, action: string, payload: unknown): string | undefined {
    const webhooks = (this.document['x-webhooks'] ?? {}) as Record<string, Json>;
    const webhook = webhooks[`${event.replace(/_/g, '-')}-${action}`]?.post as Json | undefined;
    if (webhook === undefined) return `the description has no webhook ${event}.${action}`;
    const media = ((this.resolve(webhook.requestBody) as Json).content as Record<string, Json>)['application/json'];
    return this.check(media?.schema, payload);
  }

  /** A deep copy of the description's example answer of `operation` with `status`. */
  example(operation: Operation, status: number): Json {
    const examples = (this.responseMedia(operation, status)?.examples ?? {}) as Record<string, unknown>;
    const example = this.resolve(examples.default ?? Object.values(examples)[0]) as Json | undefined;
    if (example === undefined) throw new Error(`${operation.operationId} has no example for ${status}`);
    return structuredClone(example.value) as Json;
  }

  /** The example answer of the operation at `method` and `template` (a path as the description has it). */
  exampleOf(method: string, template: string, status: number): Json {
    const match = this.match(method, template.replace(/\{[^}]+\}/g, '1'));
    if (!match.ok) throw new Error(`${method} ${template}: ${match.why}`);
    return this.example(match.operation, status);
  }

  private responseMedia(operation: Operation, status: number): Json | undefined {
    const responses = (operation.node.responses ?? {}) as Record<string, unknown>;
    const response = this.resolve(responses[String(status)]) as Json | undefined;
    return ((response?.content ?? {}) as Record<string, Json>)['application/json'];
  }

  private parameters(route: Route, node: Json): Json[] {
    const all = [...((route.item.parameters ?? []) as unknown[]), ...((node.parameters ?? []) as unknown[])];
    return all.map((parameter) => this.resolve(parameter) as Json);
  }

  private check(schema: unknown, value: unknown): string | undefined {
    let validate = this.validators.get(schema);
    if (validate === undefined) {
      validate = this.ajv.compile(jsonSchemaOf(this.resolve(schema), this.document));
      this.validators.set(schema, validate);
    }
    return validate(value) ? undefined : describe(validate.errors ?? []);
  }

  /** Follows a `$ref` within the description. */
  private resolve(node: unknown): unknown {
    let current = node;
    for (let hops = 0; hops < 10 && isRef(current); hops += 1) {
      current = current.$ref
        .slice(2)
        .split('/')
        .reduce<unknown>(
          (at, key) => (at as Json | undefined)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')],
          this.document,
        );
    }
    return current;
  }
}

function isRef(node: unknown): node is { $ref: string } {
  return typeof node === 'object' && node !== null && typeof (node as Json).$ref === 'string';
}

function fits(template: string[], segments: string[]): boolean {
  return (
    template.length === segments.length && template.every((part, i) => part.startsWith('{') || part === segments[i])
  );
}

/** Literal segments win over parameters, the earlier the more: /issues/comments over /issues/{issue_number}. */
function specificity(segments: string[]): number {
  return segments.reduce((score, part, i) => score + (part.startsWith('{') ? 0 : 2 ** (segments.length - i)), 0);
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function describe(errors: ErrorObject[]): string {
  return errors
    .map((error) => {
      const allowed = error.keyword === 'enum' ? ` (${(error.params.allowedValues as unknown[]).join(', ')})` : '';
      return `${error.instancePath || '(the body)'} ${error.message ?? 'is invalid'}${allowed}`;
    })
    .join('; ');
}
