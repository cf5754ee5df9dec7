import { issueCodes } from '@hub/compiler';
import { SCOPES, type Scope } from '../auth/api-key.js';
import type { HubOptions } from '../hub.js';
import { problemCatalog, type ProblemCode } from '../problems/catalog.js';
import { bundleFiles, configurationPartials, configurationYaml, triggerYaml } from './examples.js';
import { yamlDocumentComponents } from './yaml-schemas.js';

/** The OpenAPI document as plain data (what GET /api/openapi.json answers). */
export type OpenApiDocument = Record<string, unknown>;

const documents = new WeakMap<HubOptions, OpenApiDocument>();

/**
 * The document of a hub, built once for its options (the route serves it, the validator checks
 * against it). Its server is the hub's public URL: `publicUrl` where the options carry it, else
 * the problem base, which is the public URL unless HUB_PROBLEM_BASE says otherwise.
 */
export function hubDocument(options: HubOptions): OpenApiDocument {
  let document = documents.get(options);
  if (document === undefined) {
    document = openApiDocument(options.publicUrl ?? options.problemBase, { maxBodyBytes: options.maxBodyBytes });
    documents.set(options, document);
  }
  return document;
}

/** The issue codes of request-body problems (400); the compiler's codes are the 422 ones. */
export const REQUEST_ISSUE_CODES = [
  'request.required',
  'request.type',
  'request.unknown_field',
  'request.shape',
  'request.pattern',
  'request.too_long',
  'request.enum',
  'request.json',
  'request.schema',
] as const;

/** The problem responses (components/responses), each with the one problem code it answers. */
const PROBLEM_RESPONSES = {
  InvalidRequest: 'invalid_request',
  Unauthorized: 'unauthorized',
  EnrollmentTokenInvalid: 'enrollment_token_invalid',
  InsufficientScope: 'insufficient_scope',
  ProjectNotFound: 'project_not_found',
  DaemonNameTaken: 'daemon_name_taken',
  PayloadTooLarge: 'payload_too_large',
  UnsupportedMediaType: 'unsupported_media_type',
  InvalidConfiguration: 'invalid_configuration',
  InvalidTrigger: 'invalid_trigger',
  NotReady: 'not_ready',
  InternalError: 'internal_error',
  TriggerNotFound: ['project_not_found', 'trigger_not_found'],
  RunNotFound: 'run_not_found',
  ExecutionNotFound: 'execution_not_found',
  ActorForbidden: ['insufficient_scope', 'actor_forbidden'],
  DispatchConflict: ['trigger_disabled', 'version_not_current', 'daemon_offline', 'delivery_key_reused'],
  ExecutionFinished: 'execution_finished',
  DaemonUnauthorized: 'unauthorized',
} as const satisfies Record<string, ProblemCode | readonly ProblemCode[]>;
type ProblemResponse = keyof typeof PROBLEM_RESPONSES;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const UUID = { type: 'string', format: 'uuid' } as const;
const EXAMPLE_REQUEST_ID = '3f1c2a9e-5b7d-4e1f-9a2c-6d8e0b4f7a15';

/**
 * The OpenAPI 3.1 document of the hub's public API, as the server implements it: every public
 * operation (both shapes of the specification), every response with its status, the problem and
 * field-issue schemas, the bearer scheme, and the YAML documents' schemas from @hub/schemas.
 * The operator API (/api/admin/v1) is not public and is left out on purpose. `maxBodyBytes`, the
 * hub's body limit (HubOptions), is named in the 413's description when given.
 */
export function openApiDocument(publicUrl: string, options: { maxBodyBytes?: number } = {}): OpenApiDocument {
  const base = publicUrl.replace(/\/+$/, '');
  const limit = options.maxBodyBytes === undefined ? '' : ` (${size(options.maxBodyBytes)})`;

  /** A problem response: the Problem schema narrowed to one code (and its status and title). */
  const problem = (
    name: ProblemResponse,
    description: string,
    options: { issues?: 'required' | 'optional'; requiredScope?: boolean; headers?: Record<string, unknown>; example?: Record<string, unknown> } = {},
  ) => {
    const codes: readonly ProblemCode[] = codesOf(name);
    const code = codes[0] as ProblemCode;
    const { status, title } = problemCatalog[code];
    const required = ['type', 'title', 'status', 'detail', 'code', 'requestId'];
    const properties: Record<string, unknown> =
      codes.length === 1
        ? { type: { pattern: `/problems/${code}$` }, title: { const: title }, status: { const: status }, code: { const: code } }
        : {
            type: { pattern: `/problems/(${codes.join('|')})$` },
            title: { enum: codes.map((each) => problemCatalog[each].title) },
            status: { const: status },
            code: { enum: [...codes] },
          };
    if (options.issues === 'required') {
      required.push('issues');
      properties.issues = { minItems: 1 };
    }
    if (options.requiredScope === true) required.push('requiredScope');
    return {
      description,
      headers: { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' }, ...options.headers },
      content: {
        'application/problem+json': {
          schema: { allOf: [ref('Problem'), { type: 'object', required, properties }] },
          example: {
            type: `${base}/problems/${code}`,
            title,
            status,
            detail: description,
            code,
            requestId: EXAMPLE_REQUEST_ID,
            ...options.example,
          },
        },
      },
    };
  };

  /** A JSON success response. */
  const success = (description: string, schema: string, example?: unknown) => ({
    description,
    headers: { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } },
    content: { 'application/json': { schema: ref(schema), ...(example === undefined ? {} : { example }) } },
  });

  const responses = (...names: ProblemResponse[]) =>
    Object.fromEntries(names.map((name) => [problemCatalog[codesOf(name)[0] as ProblemCode].status, { $ref: `#/components/responses/${name}` }]));
  const scoped = (scope: Scope) => ({
    security: [{ bearerAuth: [scope] }],
    'x-hub-scope': scope,
  });
  const jsonBody = (schema: unknown, examples: Record<string, { summary: string; value: unknown }>, required = true) => ({
    required,
    content: { 'application/json': { schema, examples } },
  });

  const configurationExamples = {
    configuration: {
      summary: 'Shape A: a configuration YAML and the partials it includes',
      value: { projectSlug: 'app', yaml: configurationYaml, partials: configurationPartials },
    },
    legacyBundle: { summary: 'Shape B (legacy): a bundle of files', value: { projectSlug: 'app', files: bundleFiles } },
  };
  const configurationBody = jsonBody({ oneOf: [ref('ConfigurationRequest'), ref('LegacyConfigurationRequest')] }, configurationExamples);
  const configurationErrors: ProblemResponse[] = [
    'InvalidRequest',
    'Unauthorized',
    'InsufficientScope',
    'ProjectNotFound',
    'PayloadTooLarge',
    'UnsupportedMediaType',
    'InvalidConfiguration',
    'InternalError',
  ];
  const triggerBody = jsonBody(ref('TriggerRequest'), { trigger: { summary: 'A trigger document (B)', value: { yaml: triggerYaml } } });
  const triggerErrors: ProblemResponse[] = ['InvalidRequest', 'Unauthorized', 'InsufficientScope', 'PayloadTooLarge', 'UnsupportedMediaType', 'InvalidTrigger', 'InternalError'];
  const revision = { projectSlug: 'app', versionId: '0b7f6a52-3c1d-4f0e-8a6b-2d9c5e1f4a37', version: 3, active: true };
  const triggerRevision = {
    triggerId: '6c2e8f14-9a3b-4d57-b1e0-7f4a2c9d8e63',
    name: 'nightly-triage',
    revisionId: 'd4a9b3e7-1f6c-4a28-9e5d-0c8b7a2f1e94',
    version: 2,
    active: true,
  };

  const dispatchBody = jsonBody(ref('ManualRunRequest'), {
    dispatch: {
      summary: 'Fix the tests on a branch',
      value: { projectSlug: 'app', trigger: 'fix-tests', actor: 'dev-lead', deliveryKey: 'chat-msg-8841', input: 'branch=release-2 the flaky login test' },
    },
  });
  const replayedHeaders = {
    'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
    'Idempotent-Replayed': { description: '`true` when the delivery key was seen before with the same request: the identifiers are the first dispatch\'s.', schema: { const: 'true' } },
  };
  const dispatchedA = {
    deliveryKey: 'chat-msg-8841',
    triggerId: '2b9d4c1e-6f3a-4d8b-9e7c-1a5f0b3d2c64',
    executionId: '7c1f0d2e-4b3a-4e59-8a6d-9f0e1b2c3d4a',
    status: 'spawning',
    daemonId: '5a8e1c3f-7b2d-4f69-a0e4-3c9b6d1f8e72',
    agentId: 'claude',
  };
  const dispatchedB = {
    deliveryKey: 'chat-msg-8841',
    providerEventReceiptId: 'e3b1a9c7-2d4f-4a6e-8b0c-5f7d9e1a3b26',
    triggerRunId: '8f2a6c4e-1b3d-4e5f-9a7b-0c2d4e6f8a1b',
    configuredTriggerName: 'fix-tests',
    workflowStatus: 'running',
  };
  const signed = { security: [{ daemonSignature: [] }] };

  return {
    openapi: '3.1.0',
    info: {
      title: 'Hub public API',
      version: '0.1.0',
      summary: 'Projects, configuration and trigger validation and install, and daemon enrollment.',
      description: [
        'The public API of the hub: list the projects of the organization that the API key belongs to,',
        'validate and install configurations (shape A: one YAML with partials; shape B, legacy: a bundle',
        'of files) and triggers (B), issue enrollment tokens, and enroll daemons.',
        '',
        'Authenticate with an organization API key: `Authorization: Bearer hub_pk_…`. Each operation',
        'needs one scope (`x-hub-scope`, also named in its security requirement). A missing, malformed,',
        'unknown or revoked key is 401; a valid key without the scope is 403 naming the scope in',
        '`requiredScope`. Checks run in this order: 401, 403, 400 (the request body), 404, 422.',
        '',
        'Requests with a body send JSON (`Content-Type: application/json`);',
        `another media type is 415, a body over the size limit${limit} 413. Every failure is an`,
        'RFC 9457 problem document (`application/problem+json`, schema `Problem`); validation failures',
        'carry field issues (`FieldIssue`): `request.*` codes with pointers into the request body (400),',
        'the compiler\'s codes with pointers into the YAML (422). Every response carries `X-Request-Id`,',
        'equal to the problem\'s `requestId`; API responses carry `Cache-Control: no-store`. A path the',
        'hub does not know is a 404 problem (`not_found`); a known path with another method a 405',
        'problem (`method_not_allowed`) with `Allow`.',
        '',
        'The YAML documents sent as strings are described by their own JSON Schemas, included here as',
        '`HubConfiguration`, `HubTrigger`, `HubLegacyHubFile` and `HubLegacyWorkflow` (and their parts),',
        'referenced with `contentSchema` (annotations, not constraints): they describe the YAML text, which',
        'the hub parses and checks itself (422 with field issues), not the JSON request.',
        '',
        'Not described here: the operator API under `/api/admin/v1` (organizations, projects, API',
        'keys), which is not public and is authenticated with the hub\'s admin token.',
      ].join('\n'),
    },
    servers: [{ url: base, description: 'This hub' }],
    security: [{ bearerAuth: [] }],
    tags: [
      { name: 'Projects', description: 'The active projects of the organization.' },
      { name: 'Configurations', description: "A project's configuration: shape A (YAML and partials) or shape B (legacy bundle)." },
      { name: 'Triggers', description: 'Organization-level trigger documents (shape B), with revisions of their own.' },
      { name: 'Daemons', description: 'Enrollment tokens and daemon enrollment.' },
      { name: 'Runs', description: 'Manual runs: dispatch in either shape, and the runs themselves.' },
      { name: 'Daemon protocol', description: 'What enrolled daemons call, each request signed with the daemon\'s own Ed25519 key.' },
      { name: 'Operations', description: 'Liveness, readiness, and this document.' },
    ],
    paths: {
      '/api/v1/projects': {
        get: {
          operationId: 'listProjects',
          summary: 'List projects',
          description: "The active projects of the API key's organization, ordered by slug.",
          tags: ['Projects'],
          ...scoped('projects:read'),
          responses: {
            200: success('The active projects.', 'ProjectList', {
              projects: [{ id: '9d3b6f0a-2c4e-4a8b-b7d1-5e6f0a9c3b28', slug: 'app', name: 'App' }],
            }),
            ...responses('Unauthorized', 'InsufficientScope', 'InternalError'),
          },
        },
      },
      '/api/v1/configurations/validate': {
        post: {
          operationId: 'validateConfiguration',
          summary: 'Validate a configuration',
          description: [
            'Compiles the configuration and resolves the resources it names against the daemons enrolled in the',
            'organization, exactly as install does, but records nothing and leaves the active configuration as',
            'it is. The body is shape A (`yaml` and optional `partials`) or shape B, legacy (`files`); both or',
            'neither is 400 (`request.shape`).',
          ].join(' '),
          tags: ['Configurations'],
          ...scoped('configuration:validate'),
          requestBody: configurationBody,
          responses: {
            200: success('The configuration is valid.', 'ConfigurationValidation', { projectSlug: 'app', valid: true }),
            ...responses(...configurationErrors),
          },
        },
      },
      '/api/v1/configurations/install': {
        post: {
          operationId: 'installConfiguration',
          summary: 'Install a configuration',
          description: [
            "Validates and compiles the configuration, stores it exactly as sent as the project's next revision",
            '(versions count from 1 per project, whichever shape installed them), and makes it the active one.',
            'A failed install changes nothing and uses no version.',
          ].join(' '),
          tags: ['Configurations'],
          ...scoped('configuration:install'),
          requestBody: configurationBody,
          responses: {
            201: success('Installed: the new, active revision.', 'ConfigurationRevision', revision),
            ...responses(...configurationErrors),
          },
        },
      },
      '/api/v1/triggers/validate': {
        post: {
          operationId: 'validateTrigger',
          summary: 'Validate a trigger',
          description: "Compiles one self-contained trigger document (B) and resolves its daemon and agent against the organization's daemons; records nothing.",
          tags: ['Triggers'],
          ...scoped('configuration:validate'),
          requestBody: triggerBody,
          responses: {
            200: success('The trigger is valid.', 'TriggerValidation', { name: 'nightly-triage', valid: true }),
            ...responses(...triggerErrors),
          },
        },
      },
      '/api/v1/triggers/install': {
        post: {
          operationId: 'installTrigger',
          summary: 'Install a trigger',
          description: "Creates the organization's trigger named by the document's `name`, or updates it, with a new active revision.",
          tags: ['Triggers'],
          ...scoped('configuration:install'),
          requestBody: triggerBody,
          responses: {
            201: success('Installed: the trigger and its new, active revision.', 'TriggerRevision', triggerRevision),
            ...responses(...triggerErrors),
          },
        },
      },
      '/api/v1/daemons/enrollment-tokens': {
        post: {
          operationId: 'issueEnrollmentToken',
          summary: 'Issue an enrollment token',
          description: [
            'A single-use token, valid for ten minutes, with which one daemon enrolls itself in the organization.',
            'It expires at once when the API key that issued it is revoked. The request has no body, an empty',
            'body, or `{}` (shape A sends `{}`, shape B nothing); any other body is 400.',
          ].join(' '),
          tags: ['Daemons'],
          ...scoped('daemons:enroll'),
          requestBody: jsonBody(ref('EnrollmentTokenRequest'), { empty: { summary: 'An empty object (shape A)', value: {} } }, false),
          responses: {
            201: success('The token; it is shown only now.', 'EnrollmentToken', {
              token: 'hub_et_dc5QAhOrGCck3e8l7bB5nX9ATHjrN9C24BB5Qm',
              expiresAt: '2026-01-01T12:10:00.000Z',
            }),
            ...responses('InvalidRequest', 'Unauthorized', 'InsufficientScope', 'PayloadTooLarge', 'UnsupportedMediaType', 'InternalError'),
          },
        },
      },
      '/api/v1/daemons/enroll': {
        post: {
          operationId: 'enrollDaemon',
          summary: 'Enroll a daemon',
          description: [
            'Consumes an enrollment token and registers the daemon under a name that configurations and triggers',
            'then use. No bearer credential: the token in the body authenticates the request. The daemon sends its',
            'own Ed25519 public key (the private key never leaves its machine) and the agent runtimes it offers.',
            'The body is checked first (400, and the token is not consumed), then the token (401), then the name',
            '(409 while an active daemon of the organization holds it, unless `replace` is true, which retires',
            'that daemon). Two enrollments with one token yield one daemon.',
          ].join(' '),
          tags: ['Daemons'],
          security: [],
          requestBody: jsonBody(ref('EnrollRequest'), {
            enroll: {
              summary: 'A daemon with two runtimes',
              value: {
                token: 'hub_et_dc5QAhOrGCck3e8l7bB5nX9ATHjrN9C24BB5Qm',
                name: 'build-box',
                publicKey: { kty: 'OKP', crv: 'Ed25519', x: 'awa1ksI0CQjR_yq1rueKTZ9DARprBkZ6iRoV2zM540U' },
                runtimes: [{ provider: 'codex', models: ['gpt-5'] }, { provider: 'claude' }],
              },
            },
          }),
          responses: {
            201: success('Enrolled.', 'EnrolledDaemon', { daemonId: '5a8e1c3f-7b2d-4f69-a0e4-3c9b6d1f8e72', name: 'build-box' }),
            ...responses('InvalidRequest', 'EnrollmentTokenInvalid', 'DaemonNameTaken', 'PayloadTooLarge', 'UnsupportedMediaType', 'InternalError'),
          },
        },
      },
      '/api/manual-runs': {
        post: {
          operationId: 'dispatchManualRunA',
          summary: 'Dispatch a manual run (shape A)',
          description: [
            'Starts a run of a `manual.run` trigger: found in the project\'s active configuration, else among the',
            "organization's triggers. `input`'s leading `key=value` tokens fill the trigger's declared inputs (a value may",
            'be double-quoted); the rest, trimmed, is the prompt. The run goes to the daemon of its first step, which must be',
            'online. `deliveryKey` is unique per organization and kept: the same key with the same request answers 200 with',
            'the first dispatch\'s identifiers and `Idempotent-Replayed: true` (in either shape); with another request, 409.',
            'Shape A answers a 400 with exactly `{ "error": "invalid_request" }` and an actor outside the allowlist with',
            'exactly `{ "error": "actor_forbidden" }`; its other errors are problems, its 401 titled "Unauthorized".',
          ].join(' '),
          tags: ['Runs'],
          ...scoped('runs:dispatch'),
          requestBody: dispatchBody,
          responses: {
            200: { ...success('Dispatched, or replayed.', 'ManualRunA', dispatchedA), headers: replayedHeaders },
            400: {
              description: 'The body is not a dispatch request, or the input does not fill the trigger\'s inputs.',
              headers: { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } },
              content: { 'application/json': { schema: ref('ErrorA'), example: { error: 'invalid_request' } } },
            },
            401: {
              description: 'No API key, or a malformed, unknown or revoked one. Titled "Unauthorized" on this path.',
              headers: { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' }, 'WWW-Authenticate': { $ref: '#/components/headers/WWW-Authenticate' } },
              content: {
                'application/problem+json': {
                  schema: { allOf: [ref('Problem'), { type: 'object', properties: { code: { const: 'unauthorized' }, title: { const: 'Unauthorized' }, status: { const: 401 } } }] },
                },
              },
            },
            403: {
              description: 'The actor is not in the trigger\'s `filters.from_users` (`{ "error": "actor_forbidden" }`), or the key lacks `runs:dispatch` (a problem).',
              headers: { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } },
              content: {
                'application/json': { schema: ref('ErrorA'), example: { error: 'actor_forbidden' } },
                'application/problem+json': { schema: { allOf: [ref('Problem'), { type: 'object', required: ['requiredScope'], properties: { code: { const: 'insufficient_scope' } } }] } },
              },
            },
            ...responses('TriggerNotFound', 'DispatchConflict', 'PayloadTooLarge', 'UnsupportedMediaType', 'InternalError'),
          },
        },
      },
      '/api/v1/manual-runs': {
        post: {
          operationId: 'dispatchManualRunB',
          summary: 'Dispatch a manual run (shape B)',
          description: 'The same dispatch as shape A\'s, answered in shape B: every error is a problem document.',
          tags: ['Runs'],
          ...scoped('runs:dispatch'),
          requestBody: dispatchBody,
          responses: {
            200: { ...success('Dispatched, or replayed.', 'ManualRunB', dispatchedB), headers: replayedHeaders },
            ...responses('InvalidRequest', 'Unauthorized', 'ActorForbidden', 'TriggerNotFound', 'DispatchConflict', 'PayloadTooLarge', 'UnsupportedMediaType', 'InternalError'),
          },
        },
      },
      '/api/v1/runs/{triggerRunId}': {
        get: {
          operationId: 'getRun',
          summary: 'Show a run',
          description: 'A run and its executions, one per step started so far, in step order.',
          tags: ['Runs'],
          ...scoped('runs:read'),
          parameters: [{ name: 'triggerRunId', in: 'path', required: true, schema: UUID, description: 'From a dispatch (shape B) or GET of another run.' }],
          responses: {
            200: success('The run.', 'Run'),
            ...responses('Unauthorized', 'InsufficientScope', 'RunNotFound', 'InternalError'),
          },
        },
      },
      '/api/v1/daemon/heartbeat': {
        post: {
          operationId: 'daemonHeartbeat',
          summary: 'Heartbeat (daemon)',
          description: 'Keeps the daemon online (within 30 s of a heartbeat or a waiting long-poll) and, with `runtimes`, updates what it offers.',
          tags: ['Daemon protocol'],
          ...signed,
          requestBody: jsonBody(ref('Heartbeat'), { beat: { summary: 'A heartbeat', value: { runtimes: [{ provider: 'claude' }] } } }, false),
          responses: {
            200: success('Seen.', 'HeartbeatAnswer', { serverTime: '2026-01-01T12:00:00.000Z' }),
            ...responses('InvalidRequest', 'DaemonUnauthorized', 'PayloadTooLarge', 'UnsupportedMediaType', 'InternalError'),
          },
        },
      },
      '/api/v1/daemon/assignments/next': {
        get: {
          operationId: 'nextAssignment',
          summary: 'Wait for an assignment (daemon)',
          description: [
            'A long-poll: answers at once with the oldest assignment for this daemon, or waits up to `wait` seconds for one',
            '(woken on whichever hub instance holds the poll) and answers 204. Delivered at least once: an assignment not',
            'marked `running` within 30 s is offered again, so a daemon ignores one it is already running.',
          ].join(' '),
          tags: ['Daemon protocol'],
          ...signed,
          parameters: [{ name: 'wait', in: 'query', required: false, schema: { type: 'integer', minimum: 0, maximum: 30, default: 0 }, description: 'Seconds to wait.' }],
          responses: {
            200: success('An assignment.', 'AssignmentAnswer'),
            204: { description: 'Nothing within `wait` seconds.', headers: { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } } },
            ...responses('InvalidRequest', 'DaemonUnauthorized', 'InternalError'),
          },
        },
      },
      '/api/v1/daemon/executions/{executionId}/status': {
        post: {
          operationId: 'reportExecutionStatus',
          summary: 'Report an execution\'s status (daemon)',
          description: [
            '`running` acknowledges the assignment; `succeeded`, `failed`, `timed_out` or `cancelled` end the execution and',
            'move the run on (the next step, or the run\'s end). Repeating the current status is accepted.',
          ].join(' '),
          tags: ['Daemon protocol'],
          ...signed,
          parameters: [{ name: 'executionId', in: 'path', required: true, schema: UUID }],
          requestBody: jsonBody(ref('StatusReport'), { done: { summary: 'The agent exited 0', value: { status: 'succeeded', exitCode: 0 } } }),
          responses: {
            200: success('Recorded.', 'StatusAnswer', { executionId: '7c1f0d2e-4b3a-4e59-8a6d-9f0e1b2c3d4a', status: 'succeeded' }),
            ...responses('InvalidRequest', 'DaemonUnauthorized', 'ExecutionNotFound', 'ExecutionFinished', 'PayloadTooLarge', 'UnsupportedMediaType', 'InternalError'),
          },
        },
      },
      '/healthz': {
        get: {
          operationId: 'health',
          summary: 'Liveness',
          description: 'The process answers. Needs no credential.',
          tags: ['Operations'],
          security: [],
          responses: { 200: success('The hub process is up.', 'Health', { status: 'ok' }) },
        },
      },
      '/readyz': {
        get: {
          operationId: 'readiness',
          summary: 'Readiness',
          description: 'The process answers and its database answers. Needs no credential.',
          tags: ['Operations'],
          security: [],
          responses: {
            200: success('Ready to serve.', 'Readiness', { status: 'ready' }),
            ...responses('NotReady'),
          },
        },
      },
      '/api/openapi.json': {
        get: {
          operationId: 'openApiDocument',
          summary: 'This OpenAPI document',
          description: 'The OpenAPI 3.1 document of the public API. Needs no credential.',
          tags: ['Operations'],
          security: [],
          responses: {
            200: {
              description: 'The document.',
              headers: { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } },
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    required: ['openapi', 'info', 'paths'],
                    properties: { openapi: { type: 'string', pattern: '^3\\.1\\.\\d+$' }, info: { type: 'object' }, paths: { type: 'object' } },
                  },
                },
              },
            },
          },
        },
      },
    },
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'hub_pk_…',
          description: [
            "An organization API key, `hub_pk_` followed by 38 base62 characters (the last six a checksum); it fixes the organization.",
            `Scopes: ${SCOPES.map((scope) => `\`${scope}\``).join(', ')}.`,
          ].join(' '),
        },
        daemonSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'Hub-Signature',
          description: [
            'A signed daemon request: `Hub-Daemon` (the daemon id from enrollment), `Hub-Timestamp` (Unix milliseconds, within',
            '60 s of the hub\'s clock), `Hub-Nonce` (16–64 URL-safe characters, never reused), and `Hub-Signature`: the',
            'base64url Ed25519 signature, with the key the daemon enrolled with, of',
            '`METHOD\\nPATH_WITH_QUERY\\nTIMESTAMP\\nNONCE\\nBASE64URL(SHA-256(BODY))`.',
          ].join(' '),
        },
      },
      headers: {
        'X-Request-Id': {
          description: "The request's id: the client's own X-Request-Id when it sent a UUID, otherwise a new one. Equal to a problem's `requestId`.",
          required: true,
          schema: UUID,
        },
        'WWW-Authenticate': {
          description: 'The authentication scheme the operation takes: `Bearer realm="hub"`.',
          schema: { type: 'string' },
        },
      },
      responses: {
        InvalidRequest: problem('InvalidRequest', 'The body is not JSON, or not what the operation takes: `issues` has a `request.*` issue per field.', {
          issues: 'optional',
          example: { issues: [{ pointer: '/projectSlug', code: 'request.required', message: 'The field "projectSlug" is required.' }] },
        }),
        Unauthorized: problem('Unauthorized', 'No API key, or a malformed, unknown or revoked one: send a valid key as `Authorization: Bearer <key>`.', {
          headers: { 'WWW-Authenticate': { $ref: '#/components/headers/WWW-Authenticate' } },
        }),
        EnrollmentTokenInvalid: problem(
          'EnrollmentTokenInvalid',
          'The enrollment token is unknown, already used, expired, or its API key was revoked; ask for a new one.',
        ),
        InsufficientScope: problem('InsufficientScope', 'The API key lacks the scope the operation needs; `requiredScope` names it.', {
          requiredScope: true,
          example: { requiredScope: 'configuration:install' },
        }),
        ProjectNotFound: problem('ProjectNotFound', "The key's organization has no active project with that slug (another organization's project is not found either)."),
        DaemonNameTaken: problem('DaemonNameTaken', 'An active daemon of the organization has the name; enroll with `replace: true` to retire it.'),
        PayloadTooLarge: problem('PayloadTooLarge', `The body is larger than the largest request the hub accepts${limit}.`),
        UnsupportedMediaType: problem('UnsupportedMediaType', 'The body is not sent as JSON (`Content-Type: application/json`), or not in UTF-8.'),
        InvalidConfiguration: problem('InvalidConfiguration', 'The configuration is invalid, or names resources the organization does not have: see `issues`.', {
          issues: 'required',
          example: {
            issues: [
              {
                pointer: '/triggers/0/steps/0/agent/provider',
                code: 'resource.unknown_runtime',
                message: 'The daemon "dev-box" does not offer the provider "codex".',
                line: 21,
                column: 28,
              },
            ],
          },
        }),
        InvalidTrigger: problem('InvalidTrigger', 'The trigger is invalid, or names resources the organization does not have: see `issues`.', {
          issues: 'required',
          example: { issues: [{ pointer: '/run/target/daemon', code: 'resource.unknown_daemon', message: 'No daemon "build-box" is enrolled in the organization.', line: 9, column: 21 }] },
        }),
        NotReady: problem('NotReady', 'The database does not answer.'),
        InternalError: problem('InternalError', 'Something went wrong on the hub; the request id identifies it in the logs.'),
        TriggerNotFound: problem(
          'TriggerNotFound',
          "No active project with that slug in the key's organization (`project_not_found`), or no `manual.run` trigger of that name in its active configuration nor among the organization's triggers (`trigger_not_found`).",
        ),
        RunNotFound: problem('RunNotFound', "The key's organization has no run with that id."),
        ExecutionNotFound: problem('ExecutionNotFound', 'The daemon has no execution with that id (it may be another daemon\'s).'),
        ActorForbidden: problem('ActorForbidden', "The API key lacks `runs:dispatch` (`insufficient_scope`), or the actor is not in the trigger's `filters.from_users` (`actor_forbidden`)."),
        DispatchConflict: problem(
          'DispatchConflict',
          'The trigger is disabled (`trigger_disabled`); `expectedVersionId` is no longer the active revision (`version_not_current`, with `activeVersionId`); the daemon of the first step is offline (`daemon_offline`); or the delivery key was used for a different request (`delivery_key_reused`).',
          { example: { code: 'daemon_offline', title: 'Daemon offline' } },
        ),
        ExecutionFinished: problem('ExecutionFinished', 'The execution has already ended (the hub may have marked it `lost` or `timed_out`); `executionStatus` says how.'),
        DaemonUnauthorized: problem(
          'DaemonUnauthorized',
          'The request is not signed acceptably: a missing or malformed header, a timestamp more than 60 s from the hub\'s clock, an unknown or retired daemon, a bad signature, or a nonce used before.',
        ),
      } satisfies Record<ProblemResponse, unknown>,
      schemas: {
        Problem: {
          type: 'object',
          description: 'An RFC 9457 problem document, with the members of both shapes of the specification.',
          required: ['type', 'title', 'status', 'detail', 'code', 'requestId'],
          properties: {
            type: { type: 'string', format: 'uri', description: '`{problem_base}/problems/<code>`.' },
            title: { type: 'string', description: "The code's title, the same for every problem with that code." },
            status: { type: 'integer', minimum: 400, maximum: 599, description: 'The HTTP status.' },
            detail: { type: 'string', description: 'What went wrong in this case, for people.' },
            code: {
              type: 'string',
              pattern: '^[a-z][a-z0-9_]*$',
              description: `A stable code, for programs; the last segment of \`type\`. The public operations answer ${publicCodes().map((code) => `\`${code}\``).join(', ')}.`,
            },
            requestId: { ...UUID, description: 'The X-Request-Id of the request.' },
            issues: { type: 'array', items: ref('FieldIssue'), description: 'Field issues, on validation failures (400, 422): all of them, in a stable order.' },
            requiredScope: { type: 'string', enum: [...SCOPES], description: 'On a 403 for scope: the scope the API key lacks.' },
            activeVersionId: { ...UUID, description: "On a stale `expectedVersionId` (dispatch): the active revision's versionId." },
            executionStatus: { type: 'string', description: 'On a report about a finished execution: how it ended.' },
          },
        },
        FieldIssue: {
          type: 'object',
          description: 'One problem with the request body (`request.*` codes) or with the YAML it carries (the compiler\'s codes).',
          required: ['pointer', 'code', 'message'],
          properties: {
            pointer: {
              type: 'string',
              pattern: '^(/|$)',
              description: 'RFC 6901 JSON Pointer into the YAML document (`/triggers/0/steps/1/agent/provider`), or into the request body for `request.*` issues (`/partials/3/path`).',
            },
            code: { type: 'string', enum: [...REQUEST_ISSUE_CODES, ...Object.keys(issueCodes)], description: 'A stable, dotted code.' },
            message: { type: 'string', description: 'One sentence, without the position.' },
            file: { type: 'string', description: 'The bundle file or partial the issue is in, where there is one.' },
            line: { type: 'integer', minimum: 1, description: '1-based line of the offending YAML node.' },
            column: { type: 'integer', minimum: 1, description: '1-based column, in Unicode code points.' },
          },
        },
        Project: {
          type: 'object',
          required: ['id', 'slug', 'name'],
          additionalProperties: false,
          properties: {
            id: UUID,
            slug: { type: 'string', description: 'Selects the project in requests; unique in the organization.' },
            name: { type: 'string', description: 'Display name.' },
          },
        },
        ProjectList: {
          type: 'object',
          required: ['projects'],
          additionalProperties: false,
          properties: { projects: { type: 'array', items: ref('Project') } },
        },
        FileEntry: {
          type: 'object',
          description: 'A file as text.',
          required: ['path', 'content'],
          additionalProperties: false,
          properties: {
            path: { type: 'string', description: 'Canonical relative path, at most 512 characters (an unsafe or noncanonical one is a 422 field issue).' },
            content: { type: 'string', description: "The file's UTF-8 text." },
          },
        },
        ConfigurationRequest: {
          type: 'object',
          title: 'Shape A',
          description: 'Shape A: the configuration as one YAML document, with the partials its prompts include.',
          required: ['projectSlug', 'yaml'],
          additionalProperties: false,
          properties: {
            projectSlug: { type: 'string', description: "The project; the API key fixes the organization." },
            yaml: {
              type: 'string',
              description: 'The configuration YAML (`.hub/config.yml`), at most 1,000,000 characters; its content is a `HubConfiguration`.',
              contentMediaType: 'application/yaml',
              contentSchema: ref('HubConfiguration'),
            },
            partials: {
              type: 'array',
              description: 'Exactly one entry per file that a prompt `include` names, paths relative to `.hub/partials/`: at most 100, 1,000,000 bytes each, 5,000,000 bytes together.',
              items: ref('FileEntry'),
            },
          },
        },
        LegacyConfigurationRequest: {
          type: 'object',
          title: 'Shape B (legacy)',
          description: 'Shape B, legacy: the configuration as a bundle of files.',
          required: ['projectSlug', 'files'],
          additionalProperties: false,
          properties: {
            projectSlug: { type: 'string', description: "The project; the API key fixes the organization." },
            files: {
              type: 'array',
              description: [
                'The bundle: `.hub/hub.yml` (a `HubLegacyHubFile`), every workflow `.hub/workflows/<name>.yml` (a `HubLegacyWorkflow`),',
                'and each partial the workflows include, under `.hub/workflows/partials/`. At most 100 files of 1,000,000 characters.',
              ].join(' '),
              items: {
                anyOf: [ref('LegacyHubFileEntry'), ref('LegacyWorkflowFileEntry'), ref('FileEntry')],
                description: 'The hub file, a workflow, or another file: a partial (Markdown), or a path the hub refuses with a 422 field issue.',
              },
            },
          },
        },
        LegacyHubFileEntry: {
          type: 'object',
          title: 'Hub file',
          description: 'The hub file of a legacy bundle, whose content is YAML described by `HubLegacyHubFile`.',
          required: ['path', 'content'],
          additionalProperties: false,
          properties: {
            path: { const: '.hub/hub.yml' },
            content: { type: 'string', contentMediaType: 'application/yaml', contentSchema: ref('HubLegacyHubFile') },
          },
        },
        LegacyWorkflowFileEntry: {
          type: 'object',
          title: 'Workflow',
          description: 'A workflow of a legacy bundle, whose content is YAML described by `HubLegacyWorkflow`.',
          required: ['path', 'content'],
          additionalProperties: false,
          properties: {
            path: { type: 'string', pattern: '^\\.hub/workflows/[^/]+\\.yml$' },
            content: { type: 'string', contentMediaType: 'application/yaml', contentSchema: ref('HubLegacyWorkflow') },
          },
        },
        ConfigurationValidation: {
          type: 'object',
          required: ['projectSlug', 'valid'],
          additionalProperties: false,
          properties: { projectSlug: { type: 'string' }, valid: { const: true } },
        },
        ConfigurationRevision: {
          type: 'object',
          required: ['projectSlug', 'versionId', 'version', 'active'],
          additionalProperties: false,
          properties: {
            projectSlug: { type: 'string' },
            versionId: { ...UUID, description: 'The revision.' },
            version: { type: 'integer', minimum: 1, description: 'The revision number: 1, 2, 3… per project, without gaps.' },
            active: { type: 'boolean', description: 'True: the revision is now the active configuration.' },
          },
        },
        TriggerRequest: {
          type: 'object',
          required: ['yaml'],
          additionalProperties: false,
          properties: {
            yaml: {
              type: 'string',
              description: 'One self-contained trigger document (`.hub/triggers/<name>.yml`); its content is a `HubTrigger`.',
              contentMediaType: 'application/yaml',
              contentSchema: ref('HubTrigger'),
            },
          },
        },
        TriggerValidation: {
          type: 'object',
          required: ['name', 'valid'],
          additionalProperties: false,
          properties: { name: { type: 'string', description: "The trigger's name." }, valid: { const: true } },
        },
        TriggerRevision: {
          type: 'object',
          required: ['triggerId', 'name', 'revisionId', 'version', 'active'],
          additionalProperties: false,
          properties: {
            triggerId: UUID,
            name: { type: 'string' },
            revisionId: UUID,
            version: { type: 'integer', minimum: 1, description: 'The revision number: 1, 2, 3… per trigger.' },
            active: { type: 'boolean' },
          },
        },
        EnrollmentTokenRequest: {
          type: 'object',
          description: 'Nothing: no body, an empty body, or `{}`.',
          maxProperties: 0,
        },
        EnrollmentToken: {
          type: 'object',
          required: ['token', 'expiresAt'],
          additionalProperties: false,
          properties: {
            token: { type: 'string', pattern: '^hub_et_[0-9A-Za-z]{38}$', description: 'Opaque and single use; not a credential of the daemon.' },
            expiresAt: { type: 'string', format: 'date-time', description: 'Ten minutes after issue, ISO 8601 UTC with milliseconds.' },
          },
        },
        Ed25519PublicKey: {
          type: 'object',
          description: "The daemon's Ed25519 public key as a JWK.",
          required: ['kty', 'crv', 'x'],
          additionalProperties: false,
          properties: {
            kty: { const: 'OKP' },
            crv: { const: 'Ed25519' },
            x: { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$', description: 'The 32-byte key, base64url without padding.' },
          },
        },
        DaemonRuntime: {
          type: 'object',
          description: 'An agent runtime the daemon offers; with `modes` or `models`, only those resolve.',
          required: ['provider'],
          additionalProperties: false,
          properties: {
            provider: { type: 'string', pattern: '^[a-z0-9][a-z0-9._-]{0,62}$', examples: ['claude', 'codex'] },
            modes: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 200 } },
            models: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 200 } },
          },
        },
        EnrollRequest: {
          type: 'object',
          required: ['token', 'name', 'publicKey', 'runtimes'],
          additionalProperties: false,
          properties: {
            token: { type: 'string', description: 'An enrollment token (POST /api/v1/daemons/enrollment-tokens). Any string: a malformed token is refused like an unknown one, with 401.' },
            name: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,62}$', description: "The daemon's name in the organization, which environments name." },
            publicKey: ref('Ed25519PublicKey'),
            runtimes: { type: 'array', items: ref('DaemonRuntime') },
            replace: { type: 'boolean', default: false, description: 'Retire the active daemon that has the name, if any, instead of answering 409.' },
          },
        },
        EnrolledDaemon: {
          type: 'object',
          required: ['daemonId', 'name'],
          additionalProperties: false,
          properties: { daemonId: UUID, name: { type: 'string' } },
        },
        ManualRunRequest: {
          type: 'object',
          required: ['projectSlug', 'trigger', 'actor', 'deliveryKey'],
          additionalProperties: false,
          properties: {
            projectSlug: { type: 'string', maxLength: 255 },
            expectedVersionId: { ...UUID, description: 'Refuse (409) unless the trigger is found in this revision: the configuration\'s `versionId`, or the organization trigger\'s `revisionId`.' },
            trigger: { type: 'string', maxLength: 255, description: 'The name of a `manual.run` trigger.' },
            actor: { type: 'string', minLength: 1, maxLength: 255, description: "Who dispatches; must be in the trigger's `filters.from_users`." },
            deliveryKey: { type: 'string', minLength: 1, maxLength: 255, description: 'Unique and stable per dispatch: a repeat is answered, not run again.' },
            input: { type: 'string', description: 'Leading `key=value` tokens for declared inputs (values may be double-quoted, `\\"` inside), then the prompt.' },
          },
        },
        ManualRunA: {
          type: 'object',
          required: ['deliveryKey', 'triggerId', 'executionId', 'status', 'daemonId', 'agentId'],
          additionalProperties: false,
          properties: {
            deliveryKey: { type: 'string' },
            triggerId: { ...UUID, description: 'Stable per project and trigger name.' },
            executionId: { ...UUID, description: 'The execution of the first step.' },
            status: { const: 'spawning' },
            daemonId: UUID,
            agentId: { type: 'string', description: "The first step's agent provider." },
          },
        },
        ManualRunB: {
          type: 'object',
          required: ['deliveryKey', 'providerEventReceiptId', 'triggerRunId', 'configuredTriggerName', 'workflowStatus'],
          additionalProperties: false,
          properties: {
            deliveryKey: { type: 'string' },
            providerEventReceiptId: { ...UUID, description: 'The stored receipt of this delivery.' },
            triggerRunId: { ...UUID, description: 'The run: GET /api/v1/runs/{triggerRunId}.' },
            configuredTriggerName: { type: 'string' },
            workflowStatus: { const: 'running' },
          },
        },
        ErrorA: {
          type: 'object',
          description: "Shape A's dispatch errors, exactly as the specification gives them.",
          required: ['error'],
          additionalProperties: false,
          properties: { error: { enum: ['invalid_request', 'actor_forbidden'] } },
        },
        Run: {
          type: 'object',
          required: ['triggerRunId', 'projectSlug', 'trigger', 'actor', 'deliveryKey', 'status', 'inputs', 'createdAt', 'finishedAt', 'executions'],
          additionalProperties: false,
          properties: {
            triggerRunId: UUID,
            projectSlug: { type: 'string' },
            trigger: { type: 'string' },
            actor: { type: 'string' },
            deliveryKey: { type: 'string' },
            status: { enum: ['running', 'succeeded', 'failed', 'cancelled', 'timed_out'] },
            inputs: { type: 'object', additionalProperties: { type: 'string' } },
            createdAt: { type: 'string', format: 'date-time' },
            finishedAt: { type: ['string', 'null'], format: 'date-time' },
            executions: { type: 'array', items: ref('Execution') },
          },
        },
        Execution: {
          type: 'object',
          required: ['executionId', 'stepId', 'daemonId', 'daemon', 'status', 'exitCode', 'message', 'createdAt', 'startedAt', 'finishedAt'],
          additionalProperties: false,
          properties: {
            executionId: UUID,
            stepId: { type: 'string' },
            daemonId: UUID,
            daemon: { type: 'string', description: "The daemon's name." },
            status: { enum: ['spawning', 'running', 'succeeded', 'failed', 'timed_out', 'cancelled', 'lost'], description: '`lost`: its daemon went offline.' },
            exitCode: { type: ['integer', 'null'] },
            message: { type: ['string', 'null'] },
            createdAt: { type: 'string', format: 'date-time' },
            startedAt: { type: ['string', 'null'], format: 'date-time' },
            finishedAt: { type: ['string', 'null'], format: 'date-time' },
          },
        },
        Heartbeat: {
          type: 'object',
          additionalProperties: false,
          properties: { runtimes: { type: 'array', items: ref('DaemonRuntime'), description: 'What the daemon offers now; absent keeps what it offered.' } },
        },
        HeartbeatAnswer: {
          type: 'object',
          required: ['serverTime'],
          additionalProperties: false,
          properties: { serverTime: { type: 'string', format: 'date-time', description: "The hub's clock, to check the daemon's against." } },
        },
        Assignment: {
          type: 'object',
          required: ['executionId', 'triggerRunId', 'stepId', 'cwd', 'agent', 'prompt', 'inputs', 'actor', 'maxRuntimeMs', 'idleTimeoutMs'],
          additionalProperties: false,
          properties: {
            executionId: UUID,
            triggerRunId: UUID,
            stepId: { type: 'string' },
            cwd: { type: 'string', description: 'The working directory on the daemon\'s machine, as the environment gives it (`~` is the home directory).' },
            agent: {
              type: 'object',
              required: ['provider'],
              additionalProperties: false,
              properties: { provider: { type: 'string' }, mode: { type: 'string' }, model: { type: 'string' } },
            },
            prompt: { type: 'string', description: 'Rendered: inputs and the prompt variable filled in.' },
            inputs: { type: 'object', additionalProperties: { type: 'string' } },
            actor: { type: 'string' },
            maxRuntimeMs: { type: 'integer', minimum: 1 },
            idleTimeoutMs: { type: ['integer', 'null'], minimum: 1, description: 'Stop the agent after this long without output; null: no limit.' },
          },
        },
        AssignmentAnswer: {
          type: 'object',
          required: ['assignment'],
          additionalProperties: false,
          properties: { assignment: ref('Assignment') },
        },
        StatusReport: {
          type: 'object',
          required: ['status'],
          additionalProperties: false,
          properties: {
            status: { enum: ['running', 'succeeded', 'failed', 'timed_out', 'cancelled'] },
            exitCode: { type: ['integer', 'null'] },
            message: { type: 'string', maxLength: 4000 },
          },
        },
        StatusAnswer: {
          type: 'object',
          required: ['executionId', 'status'],
          additionalProperties: false,
          properties: { executionId: UUID, status: { enum: ['spawning', 'running', 'succeeded', 'failed', 'timed_out', 'cancelled', 'lost'] } },
        },
        Health: {
          type: 'object',
          required: ['status'],
          additionalProperties: false,
          properties: { status: { const: 'ok' } },
        },
        Readiness: {
          type: 'object',
          required: ['status'],
          additionalProperties: false,
          properties: { status: { const: 'ready' } },
        },
        ...yamlDocumentComponents(),
      },
    },
  };
}

function codesOf(name: ProblemResponse): readonly ProblemCode[] {
  const codes: ProblemCode | readonly ProblemCode[] = PROBLEM_RESPONSES[name];
  return typeof codes === 'string' ? [codes] : codes;
}

function size(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}

/** The problem codes the public operations answer with (not the operator API's). */
function publicCodes(): ProblemCode[] {
  const operatorOnly: ProblemCode[] = ['organization_not_found', 'api_key_not_found', 'organization_exists', 'project_exists'];
  return (Object.keys(problemCatalog) as ProblemCode[]).filter((code) => !operatorOnly.includes(code));
}
