import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  configurationSchema,
  legacyHubSchema,
  legacyWorkflowSchema,
  triggerSchema,
  type JsonSchema,
} from '@hub/schemas';
import { issueCodes } from '@hub/compiler';
import { Ajv2020 } from 'ajv/dist/2020.js';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createApp } from '../src/app.js';
import { SCOPES } from '../src/auth/api-key.js';
import type { Hub } from '../src/hub.js';
import { createLogger } from '../src/http/logger.js';
import { problemCatalog } from '../src/problems/catalog.js';
import { contentIssueCodes, requestIssueCodes } from '../src/problems/request-issues.js';
import { call, enrollDaemon, publicKey, setUp, type Answer } from './support/client.js';
import {
  bundleFiles,
  configurationPartials,
  configurationYaml,
  exampleDaemons,
  triggerYaml,
} from './support/documents.js';
import { hubOn, MACHINE_POSTGRES } from './support/hub.js';
import { committedDocument, openApi } from './support/openapi.js';

const EXAMPLES = fileURLToPath(new URL('../../schemas/examples/', import.meta.url));

const CONFIGURATIONS = ['/api/v1/configurations/validate', '/api/v1/configurations/install'];
const TRIGGERS = ['/api/v1/triggers/validate', '/api/v1/triggers/install'];
const TOKENS = '/api/v1/daemons/enrollment-tokens';
const ENROLL = '/api/v1/daemons/enroll';
/** Over the hub's 16 MiB body limit. */
const HUGE = `{"yaml":"${'a'.repeat(17 * 1024 * 1024)}"}`;

/** The app needs a Hub only to close over; building it touches no database. */
const fakeHub = {
  options: { problemBase: 'http://hub.test', adminToken: 'hub_admin_test', maxBodyBytes: 1024 },
  log: createLogger('error', () => {}),
} as unknown as Hub;

type Json = Record<string, unknown>;

/** Every node of a JSON value, with its JSON Pointer. */
function* walk(node: unknown, pointer = ''): Generator<[string, unknown]> {
  yield [pointer, node];
  if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node))
      yield* walk(value, `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`);
  }
}

describe('the OpenAPI document', () => {
  const document = committedDocument();
  const checker = openApi();
  const operations = checker.operations();
  const byId = (operationId: string) =>
    operations.find((operation) => operation.operation.operationId === operationId)?.operation as Json;

  it('is OpenAPI 3.1.0, and every $ref in it resolves inside it', () => {
    expect(document.openapi).toBe('3.1.0');
    // Relative: whichever origin serves the document is the hub it describes.
    expect(document.servers).toEqual([expect.objectContaining({ url: '/', description: expect.any(String) })]);
    const refs = [...walk(document)].filter(([pointer]) => pointer.endsWith('/$ref')).map(([, ref]) => ref as string);
    expect(refs.length).toBeGreaterThan(100);
    for (const ref of refs) {
      expect(ref, ref).toMatch(/^#\/components\//);
      expect(checker.at(ref.slice(1)), ref).toBeDefined();
    }
    // A $id would make the references below it resolve against another base. (A property named
    // $id, or an example's, is no keyword: GET /schemas/{file} answers JSON Schemas.)
    const keywords = [...walk(document)].filter(
      ([pointer]) => /\/\$(id|schema|defs)$/.test(pointer) && !/\/(properties|example)\/\$[a-z]+$/.test(pointer),
    );
    expect(keywords).toEqual([]);
  });

  it('is what the hub mounts: createApp mounts each operation by its operationId, and the operator API is in it', () => {
    expect(() => createApp(fakeHub)).not.toThrow();
    const ids = operations.map((operation) => operation.operation.operationId as string);
    expect(new Set(ids).size).toBe(ids.length);
    const operator = operations.filter(({ operation }) => (operation.tags as string[]).includes('Operator'));
    expect(operator.map(({ method, path }) => `${method} ${path}`).sort()).toEqual([
      'DELETE /api/admin/v1/organizations/{org}/github-installations/{installationId}',
      'GET /api/admin/v1/organizations',
      'GET /api/admin/v1/organizations/{org}/api-keys',
      'GET /api/admin/v1/organizations/{org}/github-installations',
      'GET /api/admin/v1/organizations/{org}/projects',
      'PATCH /api/admin/v1/organizations/{org}/projects/{slug}',
      'POST /api/admin/v1/organizations',
      'POST /api/admin/v1/organizations/{org}/api-keys',
      'POST /api/admin/v1/organizations/{org}/api-keys/{id}/revoke',
      'POST /api/admin/v1/organizations/{org}/github-installations',
      'POST /api/admin/v1/organizations/{org}/projects',
      'POST /api/admin/v1/organizations/{org}/projects/{slug}/deactivate',
    ]);
    for (const { operation } of operator) expect(operation.security).toEqual([{ adminToken: [] }]);
  });

  it('documents each status each operation answers, problems as application/problem+json, and X-Request-Id on every response', () => {
    const problems = ['400', '401', '403', '404', '409', '413', '415', '422', '429', '500', '503'];
    const statuses = (operationId: string) => Object.keys(byId(operationId).responses as Json);
    expect(statuses('listProjects')).toEqual(['200', '400', '401', '403', '429', '500', '503']);
    for (const operationId of ['validateConfiguration', 'installConfiguration']) {
      expect(statuses(operationId)).toEqual([
        operationId.startsWith('validate') ? '200' : '201',
        '400',
        '401',
        '403',
        '404',
        '413',
        '415',
        '422',
        '429',
        '500',
        '503',
      ]);
    }
    for (const operationId of ['validateTrigger', 'installTrigger']) {
      expect(statuses(operationId)).toEqual([
        operationId.startsWith('validate') ? '200' : '201',
        '400',
        '401',
        '403',
        '413',
        '415',
        '422',
        '429',
        '500',
        '503',
      ]);
    }
    expect(statuses('issueEnrollmentToken')).toEqual(['201', '400', '401', '403', '413', '415', '429', '500', '503']);
    expect(statuses('enrollDaemon')).toEqual(['201', '400', '401', '409', '413', '415', '429', '500', '503']);
    expect(statuses('dispatchManualRunA')).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '409',
      '413',
      '415',
      '429',
      '500',
      '503',
    ]);
    expect(statuses('dispatchManualRunB')).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '409',
      '413',
      '415',
      '429',
      '500',
      '503',
    ]);
    expect(statuses('getRun')).toEqual(['200', '400', '401', '403', '404', '429', '500', '503']);
    expect(statuses('listAuditEvents')).toEqual(['200', '400', '401', '403', '429', '500', '503']);
    expect(statuses('daemonHeartbeat')).toEqual(['200', '400', '401', '413', '415', '429', '500', '503']);
    expect(statuses('nextAssignment')).toEqual(['200', '204', '400', '401', '429', '500', '503']);
    expect(statuses('reportExecutionStatus')).toEqual([
      '200',
      '400',
      '401',
      '404',
      '409',
      '413',
      '415',
      '429',
      '500',
      '503',
    ]);
    expect(statuses('health')).toEqual(['200', '500']);
    expect(statuses('readiness')).toEqual(['200', '500', '503']);
    expect(statuses('openApiDocument')).toEqual(['200', '500']);
    expect(statuses('listOrganizations')).toEqual(['200', '401', '429', '500', '503']);
    expect(statuses('listOrganizationProjects')).toEqual(['200', '400', '401', '404', '429', '500', '503']);
    expect(statuses('getProblemType')).toEqual(['200', '400', '404', '500']);
    expect(statuses('getYamlSchema')).toEqual(['200', '304', '400', '404', '500']);
    expect(statuses('getCredential')).toEqual(['200', '401', '429', '500', '503']);
    expect(statuses('listRuns')).toEqual(['200', '400', '401', '403', '429', '500', '503']);
    expect(statuses('cancelRun')).toEqual([
      '202',
      '400',
      '401',
      '403',
      '404',
      '409',
      '413',
      '415',
      '429',
      '500',
      '503',
    ]);
    for (const operationId of ['getExecution', 'getExecutionOutput', 'getRunExecutionOutput'])
      expect(statuses(operationId)).toEqual(['200', '400', '401', '403', '404', '429', '500', '503']);
    expect(statuses('appendExecutionOutput')).toEqual(['200', '400', '401', '404', '413', '415', '429', '500', '503']);
    expect(statuses('daemonOffline')).toEqual(['204', '400', '401', '413', '415', '429', '500', '503']);
    expect(statuses('getAuthorizationServerMetadata')).toEqual(['200', '500']);
    for (const operationId of ['requestDeviceAuthorization', 'requestToken'])
      expect(statuses(operationId)).toEqual(['200', '400', '413', '429', '500', '503']);
    // Revocation answers 200 for any token (RFC 7009): no failure to count, so no 429.
    expect(statuses('revokeToken')).toEqual(['200', '400', '413', '500', '503']);
    for (const { pointer, operation } of operations) {
      for (const [status, response] of Object.entries(operation.responses as Json)) {
        const resolved = checker.at(
          ((response as Json).$ref as string | undefined)?.slice(1) ?? `${pointer}/responses/${status}`,
        ) as Json;
        expect((resolved.headers as Json)['X-Request-Id'], `${pointer} ${status}`).toEqual({
          $ref: '#/components/headers/X-Request-Id',
        });
        // A 429 says when to come back and which limit it hit; a 503 (but readiness's) when to retry.
        if (status === '429')
          expect(Object.keys(resolved.headers as Json), pointer).toEqual([
            'X-Request-Id',
            'Retry-After',
            'RateLimit',
            'RateLimit-Policy',
          ]);
        if (status === '503' && !pointer.endsWith('~1readyz/get'))
          expect(Object.keys(resolved.headers as Json), pointer).toEqual(['X-Request-Id', 'Retry-After']);
        // RFC 7009's revocation answers 200 with no body; a 304 has none either.
        if (status === '204' || status === '304' || (pointer.endsWith('~1oauth~1revoke/post') && status === '200')) {
          expect(resolved.content, pointer).toBeUndefined();
          continue;
        }
        for (const [type, content] of Object.entries(resolved.content as Json)) {
          expect(
            (content as Json).example ?? (content as Json).examples,
            `${pointer} ${status} ${type} has an example`,
          ).toBeDefined();
        }
        const media = Object.keys(resolved.content as Json);
        if (status === '200' && (operation.tags as string[]).includes('Documentation')) continue;
        // Shape A's dispatch answers its 400, and its actor 403, with the specification's { error } bodies.
        const shapeA = pointer.includes('~1api~1manual-runs') && (status === '400' || status === '403');
        // The OAuth endpoints answer OAuth errors ({ error }), as their RFCs say.
        const oauth = pointer.includes('~1oauth~1') && status === '400';
        // An execution's output: plain text, or its live stream.
        const output = pointer.endsWith('~1output/get') && status === '200';
        const expected = output
          ? ['text/plain', 'text/event-stream']
          : oauth
            ? ['application/json']
            : shapeA
              ? status === '400'
                ? ['application/json']
                : ['application/json', 'application/problem+json']
              : [problems.includes(status) ? 'application/problem+json' : 'application/json'];
        expect(media, `${pointer} ${status}`).toEqual(expected);
        if (problems.includes(status) && !(shapeA && status === '400') && !oauth)
          expect(JSON.stringify(resolved.content)).toContain('"#/components/schemas/Problem"');
      }
    }
  });

  it('requires the bearer scheme globally, with the scope per operation, except for enrollment, health, the documentation, the OAuth endpoints and the operator API', () => {
    expect(document.security).toEqual([{ bearerAuth: [] }]);
    expect((document.components as Json).securitySchemes).toEqual({
      bearerAuth: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      daemonSignature: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'Hub-Signature' }),
      adminToken: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      githubSignature: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-Hub-Signature-256' }),
    });
    // GitHub's deliveries are signed with the webhook secret, and checked by the hub before their body.
    expect(
      operations
        .filter(({ operation }) => JSON.stringify(operation.security) === JSON.stringify([{ githubSignature: [] }]))
        .map(({ path }) => path),
    ).toEqual(['/api/v1/github/webhook']);
    const signed = operations
      .filter(({ operation }) => JSON.stringify(operation.security) === JSON.stringify([{ daemonSignature: [] }]))
      .map(({ path }) => path);
    expect(signed.sort()).toEqual([
      '/api/v1/daemon/assignments/next',
      '/api/v1/daemon/executions/{executionId}/output',
      '/api/v1/daemon/executions/{executionId}/status',
      '/api/v1/daemon/heartbeat',
      '/api/v1/daemon/offline',
    ]);
    const open = operations
      .filter(({ operation }) => (operation.security as unknown[]).length === 0)
      .map(({ path }) => path);
    const oauth = [
      '/.well-known/oauth-authorization-server',
      '/oauth/device_authorization',
      '/oauth/token',
      '/oauth/revoke',
    ];
    expect(open.sort()).toEqual(
      [
        '/api/openapi.json',
        ENROLL,
        '/healthz',
        '/readyz',
        '/api/reference',
        '/api/reference/init.js',
        '/api/reference/assets/{file}',
        '/problems',
        '/problems/{code}',
        '/schemas/{file}',
        ...oauth,
      ].sort(),
    );
    // Any valid credential may ask what it is.
    expect(byId('getCredential').security).toEqual([{ bearerAuth: [] }]);
    const scopes = Object.fromEntries(
      operations
        .filter(({ operation }) => operation['x-hub-scope'] !== undefined)
        .map(({ operation }) => [operation.operationId, operation['x-hub-scope']]),
    );
    expect(scopes).toEqual({
      listProjects: 'projects:read',
      validateConfiguration: 'configuration:validate',
      installConfiguration: 'configuration:install',
      validateTrigger: 'configuration:validate',
      installTrigger: 'configuration:install',
      issueEnrollmentToken: 'daemons:enroll',
      dispatchManualRunA: 'runs:dispatch',
      dispatchManualRunB: 'runs:dispatch',
      getRun: 'runs:read',
      listRuns: 'runs:read',
      cancelRun: 'runs:dispatch',
      getExecution: 'runs:read',
      getExecutionOutput: 'runs:read',
      getRunExecutionOutput: 'runs:read',
      listAuditEvents: 'audit:read',
      listWebhookEndpoints: 'webhooks:manage',
      createWebhookEndpoint: 'webhooks:manage',
      deleteWebhookEndpoint: 'webhooks:manage',
      enableWebhookEndpoint: 'webhooks:manage',
      listWebhookDeliveries: 'webhooks:manage',
      getWebhookDelivery: 'webhooks:manage',
      resendWebhookDelivery: 'webhooks:manage',
    });
    for (const [operationId, scope] of Object.entries(scopes))
      expect(byId(operationId).security).toEqual([{ bearerAuth: [scope] }]);
  });

  it('takes a configuration in shape A or shape B, never both or neither, and leaves the YAML to the hub', () => {
    for (const path of CONFIGURATIONS) {
      expect(
        checker.checkRequest('POST', path, {
          projectSlug: 'app',
          yaml: configurationYaml,
          partials: configurationPartials,
        }),
      ).toEqual([]);
      expect(checker.checkRequest('POST', path, { projectSlug: 'app', yaml: 'not: [a configuration' })).toEqual([]);
      expect(checker.checkRequest('POST', path, { projectSlug: 'app', files: bundleFiles })).toEqual([]);
      // Paths the hub refuses with 422 (bundle.extra, path.unsafe) are for the hub to refuse.
      expect(
        checker.checkRequest('POST', path, { projectSlug: 'app', files: [{ path: '../x', content: '' }] }),
      ).toEqual([]);
      expect(checker.checkRequest('POST', path, { projectSlug: 'app', yaml: 'a: 1', files: [] })).not.toEqual([]);
      expect(checker.checkRequest('POST', path, { projectSlug: 'app' })).not.toEqual([]);
      expect(checker.checkRequest('POST', path, { projectSlug: 'app', files: bundleFiles, partials: [] })).not.toEqual(
        [],
      );
      expect(checker.checkRequest('POST', path, undefined)).not.toEqual([]);
    }
    const body = byId('installConfiguration').requestBody as Json;
    expect(((body.content as Json)['application/json'] as Json).schema).toEqual({
      description: expect.any(String),
      oneOf: [
        { $ref: '#/components/schemas/ConfigurationRequest' },
        { $ref: '#/components/schemas/LegacyConfigurationRequest' },
      ],
    });
    expect(checker.checkRequest('POST', TOKENS, undefined)).toEqual([]);
    expect(checker.checkRequest('POST', TOKENS, {})).toEqual([]);
    expect(checker.checkRequest('POST', TOKENS, { a: 1 })).not.toEqual([]);
  });

  it("carries the YAML documents' schemas from @hub/schemas, which judge YAML as the originals do", () => {
    const originals: [string, JsonSchema, string][] = [
      ['HubConfiguration', configurationSchema, configurationYaml],
      ['HubTrigger', triggerSchema, triggerYaml],
      ['HubLegacyHubFile', legacyHubSchema, bundleFiles[0]?.content as string],
      ['HubLegacyWorkflow', legacyWorkflowSchema, bundleFiles[1]?.content as string],
    ];
    const ajv = new Ajv2020({ strict: false });
    for (const [name, schema, yaml] of originals) {
      const original = ajv.compile(schema);
      const example = parse(yaml) as Json;
      const variants: unknown[] = [example, { ...example, unknown: 1 }, 'text', []];
      // Each leaf changed to a value of another type, and each string to one that breaks patterns.
      for (const [pointer, value] of walk(example)) {
        if (pointer === '' || (value !== null && typeof value === 'object')) continue;
        const parts = pointer.split('/').slice(1);
        for (const replacement of [
          typeof value === 'string' ? 42 : 'x',
          typeof value === 'string' ? `${value} Ä/..` : true,
        ]) {
          const copy = structuredClone(example);
          let node: Json = copy;
          for (const part of parts.slice(0, -1)) node = node[part] as Json;
          node[parts.at(-1) as string] = replacement;
          variants.push(copy);
        }
      }
      expect(variants.length).toBeGreaterThan(10);
      for (const variant of variants) {
        expect(
          checker.validate(`/components/schemas/${name}`, variant).length === 0,
          `${name}: ${JSON.stringify(variant)}`,
        ).toBe(original(variant));
      }
      expect(checker.validate(`/components/schemas/${name}`, example)).toEqual([]);
    }
    const configuration = (document.components as { schemas: Record<string, Json> }).schemas.ConfigurationRequest
      ?.properties as Json;
    expect(configuration.yaml).toMatchObject({
      type: 'string',
      contentMediaType: 'application/yaml',
      contentSchema: { $ref: '#/components/schemas/HubConfiguration' },
    });
  });

  it('has request examples that are packages/schemas/examples/, verbatim, and valid requests', () => {
    const read = (path: string) => readFileSync(join(EXAMPLES, path), 'utf8');
    const named = (operationId: string) =>
      (
        ((byId(operationId).requestBody as Json).content as Json)['application/json'] as {
          examples: Record<string, { value: Json }>;
        }
      ).examples;
    expect(named('installConfiguration').configuration?.value.yaml).toBe(read('configuration.yml'));
    expect(
      (named('installConfiguration').legacyBundle?.value.files as { path: string; content: string }[]).map((file) => [
        file.path,
        file.content,
      ]),
    ).toEqual(bundleFiles.map((file) => [file.path, file.content]));
    expect(named('installTrigger').trigger?.value.yaml).toBe(read('trigger.yml'));
    let count = 0;
    for (const { method, path, pointer, operation } of operations) {
      const content = (
        operation.requestBody as
          { content?: Record<string, { examples?: Record<string, { value: unknown }> }> } | undefined
      )?.content;
      if (content === undefined) continue;
      // The OAuth forms: an example each; the hub checks them itself, with OAuth errors.
      const form = content['application/x-www-form-urlencoded'] as { example?: unknown } | undefined;
      if (form !== undefined) {
        expect(form.example, pointer).toBeDefined();
        continue;
      }
      const examples = content['application/json']?.examples ?? {};
      expect(Object.keys(examples).length, pointer).toBeGreaterThan(0);
      for (const example of Object.values(examples)) {
        expect(checker.checkRequest(method, path, example.value)).toEqual([]);
        count++;
      }
    }
    // The GitHub links (issue 27): an installation to link, and a repository set and cleared.
    expect(count).toBe(23);
  });

  it("lists every issue code (the request codes, the hub's content codes and the compiler's) and every problem code, as the hub has them", () => {
    const schemas = (document.components as { schemas: Record<string, Json> }).schemas;
    const issue = ((schemas.FieldIssue?.properties as Json).code as Json).enum;
    expect(issue).toEqual([
      ...Object.keys(requestIssueCodes),
      ...Object.keys(contentIssueCodes),
      ...Object.keys(issueCodes),
    ]);
    const problem = ((schemas.Problem?.properties as Json).code as Json).enum;
    expect(problem).toEqual(Object.keys(problemCatalog));
    expect(((schemas.Problem?.properties as Json).requiredScope as Json).$ref).toBe('#/components/schemas/Scope');
    expect(schemas.Scope?.enum).toEqual([...SCOPES]);
  });

  it('is served as committed by GET /api/openapi.json, without a credential', async () => {
    const server = createApp(fakeHub).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const answer = await call({ url: `http://127.0.0.1:${port}` }, 'GET', '/api/openapi.json');
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
      expect(answer.text).toBe(readFileSync(fileURLToPath(import.meta.resolve('@hub/schemas/openapi.json')), 'utf8'));
    } finally {
      server.close();
    }
  });
});

describe('a hub answers as its OpenAPI document says', () => {
  let hub: Awaited<ReturnType<typeof hubOn>>;
  let ctx: Awaited<ReturnType<typeof setUp>>;
  const checker = openApi();

  /**
   * Sends a request, expects `status`, and checks the answer against the document; and that the
   * document agrees with the hub about the request body: accepted where the hub took it (or
   * looked past it), refused where the hub answered 400 for it.
   */
  const send = async (
    method: string,
    path: string,
    options: Parameters<typeof call>[3],
    status: number,
  ): Promise<Answer> => {
    const answer = await call(hub, method, path, options);
    expect(
      { status: answer.status, errors: checker.checkAnswer(method, path, answer) },
      `${method} ${path} → ${answer.text.slice(0, 500)}`,
    ).toEqual({ status, errors: [] });
    if (answer.status >= 400) expect(answer.body.requestId).toBe(answer.headers.get('x-request-id'));
    const body = options?.raw === '' ? undefined : options?.raw === undefined ? options?.body : tryParse(options.raw);
    if (body !== unparsable) {
      const bodyMatters = status < 400 || [404, 409, 422].includes(status) || (status === 401 && path === ENROLL);
      if (bodyMatters) expect(checker.checkRequest(method, path, body), `request of ${method} ${path}`).toEqual([]);
      if (status === 400)
        expect(checker.checkRequest(method, path, body), `request of ${method} ${path}`).not.toEqual([]);
    }
    return answer;
  };

  beforeAll(async () => {
    hub = await hubOn('external');
    ctx = await setUp(hub);
    for (const daemon of exampleDaemons) {
      const enrolled = await enrollDaemon(hub, ctx.key, daemon.name, daemon.runtimes);
      expect(checker.checkAnswer('POST', ENROLL, enrolled)).toEqual([]);
      expect(enrolled.status).toBe(201);
    }
  }, 120_000);
  afterAll(async () => hub?.close());

  it('serves its document at GET /api/openapi.json, without a credential', async () => {
    const answer = await send('GET', '/api/openapi.json', {}, 200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(answer.body).toEqual(committedDocument());
    // The body limit it documents is the hub's own.
    expect(JSON.stringify(answer.body)).toContain('(16 MiB)');
  });

  it('the operator API: lists organizations and their projects (GET), as documented', async () => {
    const admin = { token: hub.adminToken };
    const organizations = await send('GET', '/api/admin/v1/organizations', admin, 200);
    expect(organizations.body.organizations).toContainEqual(expect.objectContaining({ slug: ctx.org }));
    const projects = await send('GET', `/api/admin/v1/organizations/${ctx.org}/projects`, admin, 200);
    expect(projects.body.projects).toEqual([expect.objectContaining({ slug: ctx.project, active: true })]);
    await send('GET', '/api/admin/v1/organizations/nope/projects', admin, 404);
    await send('GET', '/api/admin/v1/organizations', {}, 401);
    await send('POST', '/api/admin/v1/organizations', { ...admin, body: { slug: 'Bad Slug', name: ' ' } }, 400);
    const keys = await send('GET', `/api/admin/v1/organizations/${ctx.org}/api-keys`, admin, 200);
    expect(keys.body.apiKeys.length).toBeGreaterThan(0);
    await send('POST', `/api/admin/v1/organizations/${ctx.org}/api-keys/not-a-uuid/revoke`, admin, 404);
  });

  it('the problem pages: every problem code of the document has one (HTML, or JSON by Accept)', async () => {
    for (const code of Object.keys(problemCatalog)) {
      const page = await call(hub, 'GET', `/problems/${code}`, { headers: { accept: 'text/html' } });
      expect(page.status, code).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      await send('GET', `/problems/${code}`, { headers: { accept: 'application/json' } }, 200);
    }
    await send('GET', '/problems', { headers: { accept: 'application/json' } }, 200);
    await send('GET', '/problems/no_such_problem', { headers: { accept: 'application/json' } }, 404);
  });

  it('answers every bearer operation 401 without a valid key, and 403 naming the scope the document names', async () => {
    const bearer = checker.operations().filter(({ operation }) => operation['x-hub-scope'] !== undefined);
    expect(bearer.length).toBe(22);
    for (const { method, path: template, operation } of bearer) {
      const path = template
        .replace('{triggerRunId}', '00000000-0000-4000-8000-000000000000')
        .replace('{executionId}', '00000000-0000-4000-8000-000000000001')
        .replace('{endpointId}', '00000000-0000-4000-8000-000000000002')
        .replace('{deliveryId}', '00000000-0000-4000-8000-000000000003');
      const missing = await send(method, path, {}, 401);
      expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);
      await send(method, path, { token: 'hub_pk_nonsense' }, 401);
      const lacking = await setUp(hub, { scopes: SCOPES.filter((scope) => scope !== operation['x-hub-scope']) });
      const forbidden = await send(method, path, { token: lacking.key }, 403);
      expect(forbidden.body).toMatchObject({ code: 'insufficient_scope', requiredScope: operation['x-hub-scope'] });
    }
  });

  it('GET /api/v1/projects: 200 whole or a page, 400 for a limit or cursor it would not give', async () => {
    const answer = await send('GET', '/api/v1/projects', { token: ctx.key }, 200);
    expect(answer.body).toEqual({ projects: [expect.objectContaining({ slug: ctx.project })] });
    const page = await send('GET', '/api/v1/projects?limit=1', { token: ctx.key }, 200);
    expect(page.body).toEqual({ projects: answer.body.projects, nextCursor: null });
    // A GET's 400 is about its query, which checkRequest (bodies) does not judge: checked here.
    for (const query of ['limit=0', 'cursor=AAAA']) {
      const refused = await call(hub, 'GET', `/api/v1/projects?${query}`, { token: ctx.key });
      expect(
        { status: refused.status, errors: checker.checkAnswer('GET', '/api/v1/projects', refused) },
        query,
      ).toEqual({ status: 400, errors: [] });
    }
  });

  it.each(CONFIGURATIONS)(
    'POST %s: 200 or 201 in both shapes, 400 (with issues), 404, 413, 415, 422 (with issues)',
    async (path) => {
      const success = path.endsWith('/install') ? 201 : 200;
      const token = ctx.key;
      await send(
        'POST',
        path,
        { token, body: { projectSlug: ctx.project, yaml: configurationYaml, partials: configurationPartials } },
        success,
      );
      await send('POST', path, { token, body: { projectSlug: ctx.project, files: bundleFiles } }, success);

      const wrongType = await send('POST', path, { token, body: { projectSlug: ctx.project, yaml: 42 } }, 400);
      expect(wrongType.body.issues).toEqual([expect.objectContaining({ code: 'request.type', pointer: '/yaml' })]);
      const both = await send(
        'POST',
        path,
        { token, body: { projectSlug: ctx.project, yaml: 'a: 1', files: [] } },
        400,
      );
      expect(both.body.issues).toEqual([expect.objectContaining({ code: 'request.shape' })]);
      await send(
        'POST',
        path,
        { token, body: { projectSlug: ctx.project, yaml: 'a: 1', partials: [{ path: 'a.md' }], extra: 1 } },
        400,
      );
      await send('POST', path, { token, body: [] }, 400);
      await send('POST', path, { token }, 400);
      const malformed = await send('POST', path, { token, raw: '{"projectSlug":' }, 400);
      expect(malformed.body.issues).toEqual([expect.objectContaining({ code: 'request.json', pointer: '' })]);

      await send('POST', path, { token, body: { projectSlug: 'nope', yaml: configurationYaml } }, 404);
      await send('POST', path, { token, raw: HUGE }, 413);
      await send('POST', path, { token, raw: 'yaml: 1', contentType: 'text/yaml' }, 415);

      const syntax = await send(
        'POST',
        path,
        { token, body: { projectSlug: ctx.project, yaml: 'environments: [' } },
        422,
      );
      expect(syntax.body).toMatchObject({
        code: 'invalid_configuration',
        issues: [expect.objectContaining({ code: 'yaml.syntax' })],
      });
      const unknownDaemon = configurationYaml.replace('daemon: dev-box', 'daemon: dev-bx');
      const resources = await send(
        'POST',
        path,
        { token, body: { projectSlug: ctx.project, yaml: unknownDaemon, partials: configurationPartials } },
        422,
      );
      expect(resources.body.issues).toEqual([
        expect.objectContaining({
          code: 'resource.unknown_daemon',
          line: expect.any(Number),
          column: expect.any(Number),
        }),
      ]);
      const unsafe = await send(
        'POST',
        path,
        {
          token,
          body: { projectSlug: ctx.project, files: [...bundleFiles, { path: '.hub/../../x.yml', content: 'x' }] },
        },
        422,
      );
      expect(unsafe.body.issues).toContainEqual(
        expect.objectContaining({ code: 'path.unsafe', pointer: '/files/3/path' }),
      );
    },
  );

  it.each(TRIGGERS)('POST %s: 200 or 201, 400 (with issues), 413, 415, 422 (with issues)', async (path) => {
    const success = path.endsWith('/install') ? 201 : 200;
    const token = ctx.key;
    await send('POST', path, { token, body: { yaml: triggerYaml } }, success);
    const wrongType = await send('POST', path, { token, body: { yaml: 42, projectSlug: ctx.project } }, 400);
    expect(wrongType.body.issues.map((issue: { code: string }) => issue.code).sort()).toEqual([
      'request.type',
      'request.unknown_field',
    ]);
    await send('POST', path, { token, raw: '[' }, 400);
    await send('POST', path, { token, raw: HUGE }, 413);
    await send('POST', path, { token, raw: 'yaml: 1', contentType: 'text/plain' }, 415);
    const invalid = await send(
      'POST',
      path,
      {
        token,
        body: {
          yaml: triggerYaml.replace('daemon: build-box', 'daemon: nowhere').replace('enabled: true', 'enabled: yes'),
        },
      },
      422,
    );
    expect(invalid.body).toMatchObject({
      code: 'invalid_trigger',
      issues: [expect.objectContaining({ line: expect.any(Number) })],
    });
  });

  it('POST /api/v1/daemons/enrollment-tokens: 201 with no body, an empty body or {}; 400, 413, 415', async () => {
    const token = ctx.key;
    const issued = await send('POST', TOKENS, { token }, 201);
    expect(issued.body.token).toMatch(/^hub_et_/);
    await send('POST', TOKENS, { token, raw: '' }, 201);
    await send('POST', TOKENS, { token, body: {} }, 201);
    const extra = await send('POST', TOKENS, { token, body: { name: 'x' } }, 400);
    expect(extra.body.issues).toEqual([expect.objectContaining({ code: 'request.type', pointer: '' })]);
    await send('POST', TOKENS, { token, raw: '{' }, 400);
    await send('POST', TOKENS, { token, raw: HUGE }, 413);
    await send('POST', TOKENS, { token, raw: '{}', contentType: 'text/plain' }, 415);
  });

  it('POST /api/v1/daemons/enroll: 201, 400 (with issues), 401, 409, 413, 415', async () => {
    const tokenOf = async () => (await send('POST', TOKENS, { token: ctx.key }, 201)).body.token as string;
    const runtimes = [{ provider: 'claude', modes: ['edit'] }, { provider: 'codex' }];
    const enrolled = await send(
      'POST',
      ENROLL,
      { body: { token: await tokenOf(), name: 'openapi-box', publicKey: publicKey(), runtimes } },
      201,
    );
    expect(enrolled.body.name).toBe('openapi-box');
    const taken = await send(
      'POST',
      ENROLL,
      { body: { token: await tokenOf(), name: 'openapi-box', publicKey: publicKey(), runtimes } },
      409,
    );
    expect(taken.body.code).toBe('daemon_name_taken');
    await send(
      'POST',
      ENROLL,
      { body: { token: await tokenOf(), name: 'openapi-box', publicKey: publicKey(), runtimes, replace: true } },
      201,
    );

    const used = await tokenOf();
    await send('POST', ENROLL, { body: { token: used, name: 'once', publicKey: publicKey(), runtimes: [] } }, 201);
    const again = await send(
      'POST',
      ENROLL,
      { body: { token: used, name: 'twice', publicKey: publicKey(), runtimes: [] } },
      401,
    );
    expect(again.body.code).toBe('enrollment_token_invalid');
    await send(
      'POST',
      ENROLL,
      { body: { token: 'hub_et_nonsense', name: 'nobody', publicKey: publicKey(), runtimes: [] } },
      401,
    );
    await send(
      'POST',
      ENROLL,
      { body: { token: 'x'.repeat(1000), name: 'nobody', publicKey: publicKey(), runtimes: [] } },
      401,
    );

    const bad = await send(
      'POST',
      ENROLL,
      {
        body: {
          token: 7,
          name: 'Bad Name',
          publicKey: { kty: 'RSA' },
          runtimes: [{ provider: 'claude', extra: 1 }],
          replace: 'yes',
        },
      },
      400,
    );
    expect(bad.body.issues.map((issue: { pointer: string }) => issue.pointer)).toEqual([
      '/token',
      '/name',
      '/publicKey',
      '/runtimes/0/extra',
      '/replace',
    ]);
    await send(
      'POST',
      ENROLL,
      { body: { token: 'hub_et_nonsense', name: 'Bad', publicKey: publicKey(), runtimes: [] } },
      400,
    );
    await send('POST', ENROLL, { body: 'token' }, 400);
    await send('POST', ENROLL, {}, 400);
    await send('POST', ENROLL, { raw: HUGE }, 413);
    await send('POST', ENROLL, { raw: 'token=x', contentType: 'application/x-www-form-urlencoded' }, 415);
  });

  it('GET /healthz and GET /readyz: 200', async () => {
    expect((await send('GET', '/healthz', {}, 200)).body).toEqual({ status: 'ok' });
    expect((await send('GET', '/readyz', {}, 200)).body).toEqual({ status: 'ready' });
  });

  // Last: it takes the hub's database away for a moment.
  it('GET /readyz: 503 while the database refuses connections', async () => {
    const database = new URL(hub.databaseUrl as string).pathname.slice(1);
    const admin = postgres(MACHINE_POSTGRES, { max: 1, onnotice: () => {} });
    try {
      await admin.unsafe(`alter database ${database} with allow_connections false`);
      await admin`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${database} and pid <> pg_backend_pid()`;
      const answer = await send('GET', '/readyz', {}, 503);
      expect(answer.body.code).toBe('not_ready');
    } finally {
      await admin.unsafe(`alter database ${database} with allow_connections true`);
      await admin.end();
    }
    let status = 0;
    for (let attempt = 0; attempt < 50 && status !== 200; attempt++) {
      status = (await call(hub, 'GET', '/readyz')).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(200);
  });
});

const unparsable = Symbol('unparsable');
function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return unparsable;
  }
}
