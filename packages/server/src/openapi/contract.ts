import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** The bundled OpenAPI document (@hub/schemas/openapi.json), as served: its exact bytes. */
export const documentText: string = readFileSync(
  createRequire(import.meta.url).resolve('@hub/schemas/openapi.json'),
  'utf8',
);

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Node = { [key: string]: Json };

/** How an operation is authenticated, as its `security` requirement says. */
export type Security =
  | { kind: 'none' }
  | { kind: 'bearer'; scope: string | undefined }
  | { kind: 'daemon' }
  | { kind: 'admin' }
  /** Checked by the operation's own handler (`Handler.authenticate`): a GitHub webhook's signature. */
  | { kind: 'own' };

export interface Parameter {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  schema: Node;
}

export interface OperationSpec {
  operationId: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** As the document writes it: /api/v1/runs/{triggerRunId}. */
  path: string;
  /** As Express matches it: /api/v1/runs/:triggerRunId. */
  expressPath: string;
  /** JSON Pointer of the operation in the document. */
  pointer: string;
  security: Security;
  parameters: Parameter[];
  /** The JSON request body, when the operation takes one. */
  body?: { required: boolean; pointer: string };
  /**
   * A form-encoded body (the OAuth endpoints): parsed, then checked by the handler itself, whose
   * errors are OAuth errors rather than problems.
   */
  form?: boolean;
}

/** PATCH and DELETE since the operator API's projects and GitHub installations (issue 27). */
const METHODS = ['get', 'post', 'patch', 'delete'] as const;

/** The operations of a document, in the document's order of paths. */
export function operationsOf(document: Node): OperationSpec[] {
  const paths = (document.paths ?? {}) as Record<string, Node>;
  const global = (document.security ?? []) as Node[];
  const operations: OperationSpec[] = [];
  for (const [path, item] of Object.entries(paths)) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace']) {
      if (item[method] === undefined) continue;
      if (!(METHODS as readonly string[]).includes(method))
        throw new Error(`${method.toUpperCase()} ${path}: the hub serves GET, POST, PATCH and DELETE only`);
      const operation = item[method] as Node;
      const pointer = `/paths/${escape(path)}/${method}`;
      const operationId = operation.operationId;
      if (typeof operationId !== 'string') throw new Error(`${method.toUpperCase()} ${path} has no operationId`);
      const parameters = [...((item.parameters ?? []) as Node[]), ...((operation.parameters ?? []) as Node[])].map(
        (parameter) => {
          if (parameter.in !== 'path' && parameter.in !== 'query')
            throw new Error(`${operationId}: parameters in ${String(parameter.in)} are not supported`);
          return {
            name: String(parameter.name),
            in: parameter.in as Parameter['in'],
            required: parameter.required === true,
            schema: (parameter.schema ?? {}) as Node,
          };
        },
      );
      const requestBody = operation.requestBody as Node | undefined;
      const json = (requestBody?.content as Node | undefined)?.['application/json'];
      const form = (requestBody?.content as Node | undefined)?.['application/x-www-form-urlencoded'] !== undefined;
      operations.push({
        operationId,
        method: method.toUpperCase() as OperationSpec['method'],
        path,
        expressPath: path.replace(/\{([A-Za-z]+)\}/g, ':$1'),
        pointer,
        security: securityOf((operation.security ?? global) as Node[], operationId),
        parameters,
        ...(json === undefined
          ? {}
          : {
              body: {
                required: requestBody?.required === true,
                pointer: `${pointer}/requestBody/content/application~1json/schema`,
              },
            }),
        ...(form ? { form } : {}),
      });
    }
  }
  return operations;
}

function securityOf(requirements: Node[], operationId: string): Security {
  if (requirements.length === 0) return { kind: 'none' };
  const [requirement, ...others] = requirements;
  const schemes = Object.entries(requirement ?? {});
  if (others.length > 0 || schemes.length !== 1) throw new Error(`${operationId}: one security scheme per operation`);
  const [scheme, scopes] = schemes[0] as [string, Json];
  if (scheme === 'daemonSignature') return { kind: 'daemon' };
  if (scheme === 'adminToken') return { kind: 'admin' };
  if (scheme === 'githubSignature') return { kind: 'own' };
  // No scope: any valid credential (GET /api/v1/credential).
  if (scheme === 'bearerAuth' && Array.isArray(scopes) && scopes.length <= 1)
    return { kind: 'bearer', scope: scopes.length === 0 ? undefined : String(scopes[0]) };
  throw new Error(`${operationId}: unknown security ${JSON.stringify(requirement)}`);
}

export function escape(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}
