// A client generated from the bundled document (openapi-fetch over the `paths` that
// openapi-typescript writes into @hub/schemas) talks to a real hub. Each call checks the answer at
// run time and its type at compile time (`pnpm typecheck` checks this file): what the document
// makes required is required in the types, and a request the document refuses does not compile.
import type { components, paths } from '@hub/schemas';
import createClient from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { setUp } from './support/client.js';
import { hubOn } from './support/hub.js';

type Schemas = components['schemas'];

describe('a client generated from the OpenAPI document', () => {
  let hub: Awaited<ReturnType<typeof hubOn>>;
  let ctx: Awaited<ReturnType<typeof setUp>>;
  let client: ReturnType<typeof createClient<paths>>;

  beforeAll(async () => {
    hub = await hubOn('external');
    ctx = await setUp(hub);
    client = createClient<paths>({ baseUrl: hub.url, headers: { authorization: `Bearer ${ctx.key}` } });
  }, 120_000);
  afterAll(async () => hub?.close());

  it('lists the projects', async () => {
    const { data, error, response } = await client.GET('/api/v1/projects');
    expect(response.status).toBe(200);
    expect(error).toBeUndefined();
    if (data === undefined) throw new Error('no data');
    expectTypeOf(data.projects).toEqualTypeOf<Schemas['Project'][]>();
    expectTypeOf(data.projects[0]!.slug).toEqualTypeOf<string>();
    expect(data.projects.map((project) => project.slug)).toEqual([ctx.project]);
  });

  it('validates a configuration: a 422 problem whose issues are required', async () => {
    const { data, error, response } = await client.POST('/api/v1/configurations/validate', {
      body: { projectSlug: ctx.project, yaml: 'triggers: [' },
    });
    expect(data).toBeUndefined();
    expect(response.status).toBe(422);
    if (error === undefined || error.code !== 'invalid_configuration')
      throw new Error(`not a 422 problem: ${JSON.stringify(error)}`);
    // Narrowed by its code to the 422 response: `issues` is required there, not optional.
    expectTypeOf(error.issues).toEqualTypeOf<Schemas['FieldIssue'][]>();
    expectTypeOf(error.status).toEqualTypeOf<422>();
    expect(error.status).toBe(422);
    expect(error.requestId).toBe(response.headers.get('x-request-id'));
    expect(error.issues.map((issue) => issue.code)).toContain('yaml.syntax');
    expect(error.issues[0]).toMatchObject({
      pointer: expect.stringMatching(/^(\/|$)/),
      line: expect.any(Number),
      column: expect.any(Number),
    });

    // Never called: what the compiler must refuse.
    const refused = () => {
      // @ts-expect-error projectSlug is required in either shape of the body.
      void client.POST('/api/v1/configurations/validate', { body: { yaml: 'triggers: []' } });
      // @ts-expect-error yaml is a string: the YAML text, not its parsed value.
      void client.POST('/api/v1/configurations/validate', { body: { projectSlug: 'app', yaml: { triggers: [] } } });
      // @ts-expect-error the document has no such path.
      void client.GET('/api/v1/nothing-here');
    };
    expect(typeof refused).toBe('function');
  });

  it('issues an enrollment token', async () => {
    const { data, response } = await client.POST('/api/v1/daemons/enrollment-tokens');
    expect(response.status).toBe(201);
    if (data === undefined) throw new Error('no data');
    expectTypeOf(data).toEqualTypeOf<Schemas['EnrollmentToken']>();
    expectTypeOf(data.token).toEqualTypeOf<string>();
    expect(data.token).toMatch(/^hub_et_[0-9A-Za-z]{38}$/);
    expect(Date.parse(data.expiresAt)).toBeGreaterThan(Date.now());
  });

  it('dispatches to a project that does not exist: 404', async () => {
    const { data, error, response } = await client.POST('/api/v1/manual-runs', {
      body: {
        projectSlug: 'no-such-project',
        trigger: 'fix-tests',
        actor: 'dev-lead',
        deliveryKey: `key-${Date.now()}`,
      },
    });
    expect(data).toBeUndefined();
    expect(response.status).toBe(404);
    if (error === undefined || error.status !== 404) throw new Error(`not a 404 problem: ${JSON.stringify(error)}`);
    expectTypeOf(error.code).toEqualTypeOf<'project_not_found' | 'trigger_not_found'>();
    expect(error.code).toBe('project_not_found');

    const refused = () => {
      // @ts-expect-error actor and deliveryKey are required.
      void client.POST('/api/v1/manual-runs', { body: { projectSlug: 'app', trigger: 'fix-tests' } });
    };
    expect(typeof refused).toBe('function');
  });

  it("lists organizations on the operator API, with the hub's admin token", async () => {
    const { data, response } = await client.GET('/api/admin/v1/organizations', {
      headers: { authorization: `Bearer ${hub.adminToken}` },
    });
    expect(response.status).toBe(200);
    if (data === undefined) throw new Error('no data');
    expectTypeOf(data.organizations).toEqualTypeOf<Schemas['Organization'][]>();
    expect(data.organizations.map((organization) => organization.slug)).toContain(ctx.org);

    // The API key is not the admin token: 401, a problem.
    const refused = await client.GET('/api/admin/v1/organizations');
    expect(refused.response.status).toBe(401);
    expect(refused.error?.code).toBe('unauthorized');
  });
});
