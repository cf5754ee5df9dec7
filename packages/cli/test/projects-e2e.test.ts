// `hub projects` against a real hub, and how every hub command picks its hub and its credential:
// origin argument > HUB_URL > the active stored login > http://localhost:8080, and
// --api-key > HUB_API_KEY > the credential stored for that exact origin.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, setUp } from '../../server/test/support/client.js';
import { hubOn } from '../../server/test/support/hub.js';
import { saveCredential } from '../src/credentials.js';
import { hub as runHub } from './support/cli.js';
import { closedOrigin } from './support/origins.js';

const BOGUS = 'hub_pk_0000000000000000000000000000bogus';

let hub: Awaited<ReturnType<typeof hubOn>>;
let alpha: Awaited<ReturnType<typeof setUp>>;
let beta: Awaited<ReturnType<typeof setUp>>;
let empty: Awaited<ReturnType<typeof setUp>>;
let root: string;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  hub = await hubOn('embedded');
  alpha = await setUp(hub, { project: 'alpha' });
  beta = await setUp(hub, { project: 'beta' });
  empty = await setUp(hub, { project: 'gone' });
  const admin = { token: hub.adminToken };
  const added = await call(hub, 'POST', `/api/admin/v1/organizations/${alpha.org}/projects`, {
    ...admin,
    body: { slug: 'website-2', name: 'The public website' },
  });
  expect(added.status, added.text).toBe(201);
  const deactivated = await call(
    hub,
    'POST',
    `/api/admin/v1/organizations/${empty.org}/projects/gone/deactivate`,
    admin,
  );
  expect(deactivated.status, deactivated.text).toBe(200);
}, 120_000);

afterAll(async () => hub?.close());

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'hub-projects-'));
  dir = join(root, 'config');
  env = { HUB_CONFIG_DIR: dir };
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

const projects = (args: string[], extra: Record<string, string> = {}) =>
  runHub(['projects', ...args], { env: { ...env, ...extra } });
const slugs = (stdout: string) =>
  (JSON.parse(stdout) as { projects: { slug: string }[] }).projects.map((project) => project.slug);
const secretsIn = (text: string) => [alpha.key, beta.key, BOGUS].filter((key) => text.includes(key));

describe('hub projects', () => {
  it('prints a table of slug, name and id, in columns', async () => {
    const listed = (await call(hub, 'GET', '/api/v1/projects', { token: alpha.key })).body.projects as {
      id: string;
      slug: string;
      name: string;
    }[];
    const id = (slug: string) => listed.find((project) => project.slug === slug)?.id;
    const { code, stdout, stderr } = await projects([hub.url], { HUB_API_KEY: alpha.key });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout.split('\n')).toEqual([
      `SLUG${' '.repeat(7)}NAME${' '.repeat(16)}ID`,
      `alpha${' '.repeat(6)}alpha${' '.repeat(15)}${id('alpha')}`,
      `website-2  The public website  ${id('website-2')}`,
      '',
    ]);
  });

  it('--json prints the origin and the projects as the hub listed them', async () => {
    const { code, stdout } = await projects([`${hub.url.toUpperCase().replace('HTTP://', 'http://')}/`, '--json'], {
      HUB_API_KEY: alpha.key,
    });
    expect(code).toBe(0);
    const direct = await call(hub, 'GET', '/api/v1/projects', { token: alpha.key });
    expect(JSON.parse(stdout)).toEqual({ origin: hub.url, projects: direct.body.projects });
    expect(stdout.endsWith('}\n')).toBe(true);
  });

  it('says so when the organization has no active project, and --json still records the hub', async () => {
    expect(await projects([hub.url], { HUB_API_KEY: empty.key })).toEqual({
      code: 0,
      stdout: 'No active projects.\n',
      stderr: '',
    });
    const json = await projects([hub.url, '--json'], { HUB_API_KEY: empty.key });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ origin: hub.url, projects: [] });
  });

  it("renders the hub's 401 for people on standard error, with the request id, and exits 1 without printing the key", async () => {
    for (const args of [[hub.url], [hub.url, '--json']]) {
      const { code, stdout, stderr } = await projects(args, { HUB_API_KEY: BOGUS });
      expect(code).toBe(1);
      expect(stdout).toBe('');
      expect(stderr).toMatch(
        /^hub: Authentication required: .+ \(HTTP 401 Unauthorized, unauthorized\)\nRequest id: [0-9a-f-]{36}\n$/,
      );
      expect(secretsIn(stderr)).toEqual([]);
    }
  });

  it('exits 1 naming the hub when it cannot be reached', async () => {
    const origin = await closedOrigin();
    const { code, stderr } = await projects([origin], { HUB_API_KEY: alpha.key });
    expect(code).toBe(1);
    expect(stderr).toBe(`hub: could not reach the hub at ${origin}: ECONNREFUSED\n`);
  });
});

describe('which hub a command uses', () => {
  it('the origin argument before HUB_URL and the active login', async () => {
    const [argument, fromEnv, stored] = [await closedOrigin(), await closedOrigin(), await closedOrigin()];
    await saveCredential(dir, stored, alpha.key, 'api_key', { activate: true });
    const { code, stderr } = await projects([argument], { HUB_URL: fromEnv, HUB_API_KEY: alpha.key });
    expect(code).toBe(1);
    expect(stderr).toContain(`could not reach the hub at ${argument}:`);
  });

  it('HUB_URL, normalized, before the active login', async () => {
    const [fromEnv, stored] = [await closedOrigin(), await closedOrigin()];
    await saveCredential(dir, stored, alpha.key, 'api_key', { activate: true });
    const { code, stderr } = await projects([], { HUB_URL: `${fromEnv}/`, HUB_API_KEY: alpha.key });
    expect(code).toBe(1);
    expect(stderr).toContain(`could not reach the hub at ${fromEnv}:`);
  });

  it('the active login, with its credential, when neither is given', async () => {
    await saveCredential(dir, await closedOrigin(), beta.key, 'api_key', { activate: false });
    await saveCredential(dir, hub.url, alpha.key, 'api_key', { activate: true });
    const { code, stdout } = await projects(['--json']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout).origin).toBe(hub.url);
    expect(slugs(stdout)).toEqual(['alpha', 'website-2']);
  });

  it('http://localhost:8080 without any of them (a stored login that is not active does not count)', async () => {
    await saveCredential(dir, hub.url, alpha.key, 'api_key', { activate: false });
    const { code, stderr } = await projects([]);
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /^hub: No credential for http:\/\/localhost:8080: run "hub login http:\/\/localhost:8080", or set HUB_API_KEY .* Credentials are stored for http:\/\/127\.0\.0\.1:\d+ only/,
    );
  });

  it.each([
    ['an origin that is not a URL', ['hub.example.com'], {}, /is not a hub URL/],
    ['HUB_URL with a path', [], { HUB_URL: 'http://127.0.0.1:9/api' }, /has a path, query or fragment/],
  ])('refuses %s: exit 2', async (_, args, extra, message) => {
    const { code, stderr } = await projects(args, { HUB_API_KEY: alpha.key, ...extra });
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
  });
});

describe('which credential a command uses', () => {
  // Each organization has its own projects, so the listing tells which credential was sent.
  it.each([
    [
      '--api-key before HUB_API_KEY and the store',
      () => ({ option: alpha.key, env: beta.key, stored: beta.key }),
      'alpha',
    ],
    ['HUB_API_KEY before the store', () => ({ env: alpha.key, stored: beta.key }), 'alpha'],
    ['the store without either', () => ({ stored: beta.key }), 'beta'],
    ['the store when HUB_API_KEY is empty', () => ({ env: '', stored: beta.key }), 'beta'],
    ['--api-key even when it is refused', () => ({ option: BOGUS, env: alpha.key, stored: alpha.key }), 401],
    ['HUB_API_KEY even when it is refused', () => ({ env: BOGUS, stored: alpha.key }), 401],
  ])('%s', async (_, given: () => { option?: string; env?: string; stored?: string }, expected) => {
    const { option, env: fromEnv, stored } = given();
    if (stored !== undefined) await saveCredential(dir, hub.url, stored, 'api_key', { activate: false });
    const { code, stdout, stderr } = await projects(
      [hub.url, '--json', ...(option === undefined ? [] : ['--api-key', option])],
      fromEnv === undefined ? {} : { HUB_API_KEY: fromEnv },
    );
    if (expected === 401) {
      expect(code).toBe(1);
      expect(stderr).toContain('(HTTP 401 Unauthorized, unauthorized)');
    } else {
      expect(stderr).toBe('');
      expect(slugs(stdout)[0]).toBe(expected);
    }
    expect(secretsIn(stdout + stderr)).toEqual([]);
  });

  it('uses a stored credential for its exact origin only', async () => {
    const localhost = hub.url.replace('127.0.0.1', 'localhost');
    await saveCredential(dir, localhost, alpha.key, 'api_key', { activate: false });
    const { code, stderr } = await projects([hub.url]);
    expect(code).toBe(2);
    expect(stderr).toContain(
      `hub: No credential for ${hub.url}: run "hub login ${hub.url}", or set HUB_API_KEY to an organization API key (hub_pk_...) or CLI credential (hub_cli_...), or pass --api-key KEY. Credentials are stored for ${localhost} only`,
    );
    expect(secretsIn(stderr)).toEqual([]);
  });

  it.each([
    [['--api-key', ''], {}, /The --api-key value is empty/],
    [['--api-key', 'hub_pk_with space'], {}, /The --api-key value contains spaces or characters/],
    [[], { HUB_API_KEY: 'hub_pk_line\nbreak' }, /HUB_API_KEY contains spaces or characters/],
    [[], { HUB_API_KEY: 'hub_et_0123456789' }, /HUB_API_KEY is an enrollment token/],
  ])('refuses an unusable credential %j %j before sending it: exit 2', async (args, extra, message) => {
    const { code, stderr } = await projects([hub.url, ...args], extra);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
    expect(stderr).not.toMatch(/with space|line\sbreak|0123456789/);
  });
});

/**
 * A real HTTP hop in front of the hub that records the paths asked for; with `oldHub`, it drops
 * the query as a hub from before pagination did (it ignored unknown query parameters).
 */
async function recordingProxy(
  target: string,
  options: { oldHub?: boolean } = {},
): Promise<{ url: string; paths: string[]; close(): Promise<void> }> {
  const paths: string[] = [];
  const server: Server = createServer((req, res) => {
    paths.push(req.url ?? '');
    const path = options.oldHub === true ? (req.url ?? '').split('?')[0] : req.url;
    void fetch(`${target}${path}`, { headers: { authorization: req.headers.authorization ?? '' } }).then(
      async (answer) => {
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
        res.end(Buffer.from(await answer.arrayBuffer()));
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    paths,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('hub projects with more projects than a page', () => {
  const MANY = 2_345;
  let many: Awaited<ReturnType<typeof setUp>>;
  let whole: { id: string; slug: string; name: string }[];

  beforeAll(async () => {
    many = await setUp(hub, { project: 'p-0000' });
    await hub.sql`
      insert into projects (organization_id, slug, name)
      select o.id, 'p-' || lpad(i::text, 4, '0'), 'Project ' || i from organizations o, generate_series(1, ${MANY - 1}) i where o.slug = ${many.org}`;
    const answer = await call(hub, 'GET', '/api/v1/projects', { token: many.key });
    whole = answer.body.projects;
    expect(whole.length).toBe(MANY);
  }, 60_000);

  it('reads the list a page of 1,000 at a time, following nextCursor, and prints all of it in order', async () => {
    const proxy = await recordingProxy(hub.url);
    try {
      const json = await projects([proxy.url, '--json'], { HUB_API_KEY: many.key });
      expect(json.stderr).toBe('');
      expect(json.code).toBe(0);
      expect(JSON.parse(json.stdout)).toEqual({ origin: proxy.url, projects: whole });
      expect(proxy.paths.length).toBe(3);
      expect(proxy.paths[0]).toBe('/api/v1/projects?limit=1000');
      expect(
        proxy.paths.slice(1).every((path) => /^\/api\/v1\/projects\?limit=1000&cursor=[A-Za-z0-9_-]+$/.test(path)),
      ).toBe(true);
      const table = await projects([proxy.url], { HUB_API_KEY: many.key });
      expect(table.code).toBe(0);
      const lines = table.stdout.trimEnd().split('\n');
      expect(lines.length).toBe(MANY + 1);
      expect(lines.slice(1).map((line) => line.split(/\s+/)[0])).toEqual(whole.map((project) => project.slug));
    } finally {
      await proxy.close();
    }
  });

  it('takes the whole list from a hub that does not page (no nextCursor): one request', async () => {
    const proxy = await recordingProxy(hub.url, { oldHub: true });
    try {
      const json = await projects([proxy.url, '--json'], { HUB_API_KEY: many.key });
      expect(json.code).toBe(0);
      expect(JSON.parse(json.stdout).projects).toEqual(whole);
      expect(proxy.paths).toEqual(['/api/v1/projects?limit=1000']);
    } finally {
      await proxy.close();
    }
  });
});
