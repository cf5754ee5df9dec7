// The operator API's GitHub links (DECISIONS.md, GitHub; docs/decisions.md, "GitHub: linking"):
// an installation belongs to one organization, a repository to one project; each change audited.
// A real hub on the machine's PostgreSQL; GitHub, where it is asked, is a few lines of node:http.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectProblem, setUp } from './support/client.js';
import { hubOn } from './support/hub.js';

type Hub = Awaited<ReturnType<typeof hubOn>>;
const INSTALLATIONS = (org: string) => `/api/admin/v1/organizations/${org}/github-installations`;

const auditOf = (hub: Hub, kind: string) =>
  hub.sql<{ org: string; actor: string; subject: Record<string, unknown> }[]>`
    select o.slug as org, e.actor_kind as actor, e.subject from audit_events e
    join organizations o on o.id = e.organization_id where e.kind = ${kind} order by e.at, e.id`;

describe('the operator API links GitHub installations and names repositories', () => {
  let hub: Hub;
  let acme: Awaited<ReturnType<typeof setUp>>;
  let globex: Awaited<ReturnType<typeof setUp>>;
  const admin = () => ({ token: hub.adminToken });

  beforeAll(async () => {
    hub = await hubOn('external');
    acme = await setUp(hub, { org: 'acme', project: 'app' });
    globex = await setUp(hub, { org: 'globex', project: 'site' });
    await call(hub, 'POST', '/api/admin/v1/organizations/acme/projects', {
      ...admin(),
      body: { slug: 'web', name: 'Web' },
    });
  }, 120_000);
  afterAll(async () => hub?.close());

  it('links an installation: 201, then 200 with the same link; 409 for another organization, naming it', async () => {
    const linked = await call(hub, 'POST', INSTALLATIONS('acme'), { ...admin(), body: { installationId: 4242 } });
    expect(linked.status, linked.text).toBe(201);
    expect(linked.body).toEqual({ installationId: 4242, organization: 'acme', linkedAt: expect.any(String) });
    const again = await call(hub, 'POST', INSTALLATIONS('acme'), { ...admin(), body: { installationId: 4242 } });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(linked.body);
    const taken = await call(hub, 'POST', INSTALLATIONS(globex.org), { ...admin(), body: { installationId: 4242 } });
    expectProblem(taken, 409, 'github_installation_taken');
    expect(taken.body.organization).toBe('acme');
    expectProblem(
      await call(hub, 'POST', INSTALLATIONS('nope'), { ...admin(), body: { installationId: 1 } }),
      404,
      'organization_not_found',
    );
    for (const body of [{}, { installationId: 0 }, { installationId: '7' }, { installationId: 1.5 }, { id: 7 }])
      expectProblem(await call(hub, 'POST', INSTALLATIONS('acme'), { ...admin(), body }), 400, 'invalid_request');
    expect((await call(hub, 'POST', INSTALLATIONS('acme'), { body: { installationId: 5 } })).status).toBe(401);
    // Linked once: one audit event, the operator's.
    expect(await auditOf(hub, 'github_installation.linked')).toEqual([
      { org: 'acme', actor: 'operator', subject: { installationId: 4242 } },
    ]);
  });

  it('lists the organization’s installations, and unlinks one: 204, then 404', async () => {
    await call(hub, 'POST', INSTALLATIONS('acme'), { ...admin(), body: { installationId: 9001 } });
    const listed = await call(hub, 'GET', INSTALLATIONS('acme'), admin());
    expect(listed.status).toBe(200);
    expect(listed.body.githubInstallations.map((each: { installationId: number }) => each.installationId)).toEqual([
      4242, 9001,
    ]);
    expect((await call(hub, 'GET', INSTALLATIONS(globex.org), admin())).body).toEqual({ githubInstallations: [] });
    expectProblem(
      await call(hub, 'DELETE', `${INSTALLATIONS(globex.org)}/9001`, admin()),
      404,
      'github_installation_not_found',
    );
    for (const id of ['abc', '0', '01', '99999999999999999999'])
      expectProblem(
        await call(hub, 'DELETE', `${INSTALLATIONS('acme')}/${id}`, admin()),
        404,
        'github_installation_not_found',
      );
    const gone = await call(hub, 'DELETE', `${INSTALLATIONS('acme')}/9001`, admin());
    expect(gone.status).toBe(204);
    expect(gone.text).toBe('');
    expectProblem(
      await call(hub, 'DELETE', `${INSTALLATIONS('acme')}/9001`, admin()),
      404,
      'github_installation_not_found',
    );
    expect((await auditOf(hub, 'github_installation.unlinked')).map((event) => event.subject)).toEqual([
      { installationId: 9001 },
    ]);
    // Now free: another organization may link it.
    expect(
      (await call(hub, 'POST', INSTALLATIONS(globex.org), { ...admin(), body: { installationId: 9001 } })).status,
    ).toBe(201);
    // PUT is no method of the path: 405 with Allow.
    const put = await call(hub, 'PUT', `${INSTALLATIONS('acme')}/4242`, admin());
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('DELETE');
  });

  it('names a project’s repository (PATCH): shown by the project views, unique without regard to case', async () => {
    const project = (slug: string, org = 'acme') => `/api/admin/v1/organizations/${org}/projects/${slug}`;
    const set = await call(hub, 'PATCH', project('app'), { ...admin(), body: { repository: 'Octo-Org/Hello-World' } });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toEqual({
      id: expect.any(String),
      slug: 'app',
      name: 'app',
      active: true,
      repository: 'Octo-Org/Hello-World',
    });
    const whole = await call(hub, 'GET', '/api/v1/projects', { token: acme.key });
    expect(whole.body.projects).toEqual([
      { id: set.body.id, slug: 'app', name: 'app', repository: 'Octo-Org/Hello-World' },
      { id: expect.any(String), slug: 'web', name: 'Web' },
    ]);
    const paged = await call(hub, 'GET', '/api/v1/projects?limit=1', { token: acme.key });
    expect(paged.body.projects).toEqual([whole.body.projects[0]]);
    const operator = await call(hub, 'GET', '/api/admin/v1/organizations/acme/projects', admin());
    expect(operator.body.projects[0]).toMatchObject({ slug: 'app', repository: 'Octo-Org/Hello-World' });
    // Another project, in this organization or another, cannot name it in any case.
    for (const [slug, org] of [
      ['web', 'acme'],
      ['site', globex.org],
    ] as const) {
      const taken = await call(hub, 'PATCH', project(slug, org), {
        ...admin(),
        body: { repository: 'octo-org/hello-world' },
      });
      expectProblem(taken, 409, 'repository_taken');
      expect(taken.body).toMatchObject({ organization: 'acme', projectSlug: 'app' });
    }
    // The same project may change its case; setting it as it is records nothing.
    expect(
      (await call(hub, 'PATCH', project('app'), { ...admin(), body: { repository: 'octo-org/hello-world' } })).status,
    ).toBe(200);
    expect(
      (await call(hub, 'PATCH', project('app'), { ...admin(), body: { repository: 'octo-org/hello-world' } })).status,
    ).toBe(200);
    const cleared = await call(hub, 'PATCH', project('app'), { ...admin(), body: { repository: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.body).not.toHaveProperty('repository');
    expect(
      (await call(hub, 'PATCH', project('web'), { ...admin(), body: { repository: 'octo-org/hello-world' } })).status,
    ).toBe(200);
    expect((await auditOf(hub, 'project.repository_changed')).map((event) => event.subject)).toEqual([
      { projectSlug: 'app', name: 'app', repository: 'Octo-Org/Hello-World', previousRepository: null },
      {
        projectSlug: 'app',
        name: 'app',
        repository: 'octo-org/hello-world',
        previousRepository: 'Octo-Org/Hello-World',
      },
      { projectSlug: 'app', name: 'app', repository: null, previousRepository: 'octo-org/hello-world' },
      { projectSlug: 'web', name: 'Web', repository: 'octo-org/hello-world', previousRepository: null },
    ]);
  });

  it.each([
    'hello-world',
    'a/b/c',
    '-octo/x',
    'octo/',
    '/x',
    'octo/..',
    'octo/.',
    'octo org/x',
    `${'o'.repeat(40)}/x`,
    'octo/ü',
  ])('refuses the repository %j: 422 with one repository.format issue at /repository', async (repository) => {
    const refused = await call(hub, 'PATCH', '/api/admin/v1/organizations/acme/projects/app', {
      ...admin(),
      body: { repository },
    });
    expectProblem(refused, 422, 'invalid_repository');
    expect(refused.body.issues).toEqual([
      { pointer: '/repository', code: 'repository.format', message: expect.stringContaining('owner/name') },
    ]);
  });

  it('answers 400 for a body of the wrong shape, and 404 (before 422) for an unknown project or organization', async () => {
    const path = '/api/admin/v1/organizations/acme/projects/app';
    for (const body of [{}, { repository: 7 }, { repository: 'a/b', name: 'x' }])
      expectProblem(await call(hub, 'PATCH', path, { ...admin(), body }), 400, 'invalid_request');
    expectProblem(
      await call(hub, 'PATCH', '/api/admin/v1/organizations/acme/projects/nope', {
        ...admin(),
        body: { repository: 'bad' },
      }),
      404,
      'project_not_found',
    );
    expectProblem(
      await call(hub, 'PATCH', '/api/admin/v1/organizations/nope/projects/app', {
        ...admin(),
        body: { repository: null },
      }),
      404,
      'organization_not_found',
    );
    expect((await call(hub, 'PATCH', path, { body: { repository: null } })).status).toBe(401);
  });
});

describe('with the GitHub App configured, linking asks GitHub for the account, best effort', () => {
  let hub: Hub;
  let github: Server;
  const asked: { path: string; authorization: string | undefined }[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'hub-github-key-'));

  beforeAll(async () => {
    // GitHub's GET /app/installations/{id}: installation 77 is on acme-corp; any other fails.
    github = createServer((req, res) => {
      asked.push({ path: req.url ?? '', authorization: req.headers.authorization });
      const answer =
        req.url === '/app/installations/77'
          ? {
              status: 200,
              body: { id: 77, target_type: 'Organization', account: { login: 'acme-corp', type: 'Organization' } },
            }
          : { status: 502, body: { message: 'Server Error' } };
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
    });
    await new Promise<void>((resolve) => github.listen(0, '127.0.0.1', resolve));
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const keyFile = join(dir, 'app.pem');
    writeFileSync(keyFile, privateKey.export({ type: 'pkcs1', format: 'pem' }));
    hub = await hubOn('external', {
      HUB_GITHUB_APP_ID: '1234',
      HUB_GITHUB_APP_SLUG: 'hub-test',
      HUB_GITHUB_PRIVATE_KEY_FILE: keyFile,
      HUB_GITHUB_WEBHOOK_SECRET: 'secret',
      HUB_GITHUB_API_URL: `http://127.0.0.1:${(github.address() as AddressInfo).port}`,
    });
    await setUp(hub, { org: 'acme' });
  }, 120_000);
  afterAll(async () => {
    await hub?.close();
    github?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('fills the account from GitHub, with the app’s JWT; links without it when GitHub fails', async () => {
    const linked = await call(hub, 'POST', INSTALLATIONS('acme'), {
      token: hub.adminToken,
      body: { installationId: 77 },
    });
    expect(linked.status, linked.text).toBe(201);
    expect(linked.body).toMatchObject({ installationId: 77, accountLogin: 'acme-corp', accountType: 'Organization' });
    expect(asked[0]?.authorization).toMatch(/^bearer [\w-]+\.[\w-]+\.[\w-]+$/i);
    const unknown = await call(hub, 'POST', INSTALLATIONS('acme'), {
      token: hub.adminToken,
      body: { installationId: 78 },
    });
    expect(unknown.status, unknown.text).toBe(201);
    expect(unknown.body).not.toHaveProperty('accountLogin');
    expect((await auditOf(hub, 'github_installation.linked')).map((event) => event.subject)).toEqual([
      { installationId: 77, account: 'acme-corp' },
      { installationId: 78 },
    ]);
  });
});
