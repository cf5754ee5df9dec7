// GET /api/v1/projects on both databases: a plain call is the specification's whole list, by
// slug; `limit` and `cursor` page through it with `nextCursor`; a limit or cursor the hub would
// not give is 400, after the key check.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectProblem, setUp, type Answer } from './support/client.js';
import { databases, hubOn } from './support/hub.js';

interface Project {
  id: string;
  slug: string;
  name: string;
}

// Names that JSON must quote and escape; slugs whose order differs between collations ('-').
const NAMES = ['Say "hi"', 'back\\slash', 'ünïcødé 🚀', 'tab\there', '</script>', 'plain'];
const SLUGS = ['a', 'a-b', 'ab', 'b0', 'b-0', 'zz', '0-first', 'mid-1', 'mid-10', 'mid-2'];

describe.each(databases)('the projects list on the %s database', (kind) => {
  let hub: Awaited<ReturnType<typeof hubOn>>;
  let ctx: Awaited<ReturnType<typeof setUp>>;
  let other: Awaited<ReturnType<typeof setUp>>;
  let empty: Awaited<ReturnType<typeof setUp>>;
  /** The organization's active projects, by slug as the database orders them. */
  let expected: Project[];

  const list = (query: string, token = ctx.key) => call(hub, 'GET', `/api/v1/projects${query}`, { token });

  beforeAll(async () => {
    hub = await hubOn(kind);
    ctx = await setUp(hub, { project: 'app' });
    other = await setUp(hub, { project: 'b1' });
    empty = await setUp(hub, { project: 'gone' });
    await hub.sql`update projects p set active = false from organizations o where o.id = p.organization_id and o.slug = ${empty.org}`;
    const [organization] = await hub.sql<{ id: string }[]>`select id from organizations where slug = ${ctx.org}`;
    const id = organization?.id as string;
    for (const [index, slug] of SLUGS.entries()) {
      await hub.sql`insert into projects (organization_id, slug, name) values (${id}, ${slug}, ${NAMES[index % NAMES.length] as string})`;
    }
    await hub.sql`insert into projects (organization_id, slug, name, active) values (${id}, 'inactive', 'Deactivated', false)`;
    expected = await hub.sql<
      Project[]
    >`select id, slug, name from projects where organization_id = ${id} and active order by slug`;
    expect(expected.length).toBe(SLUGS.length + 1);
  }, 120_000);
  afterAll(async () => hub?.close());

  /** Every page of the list with `limit`, by following nextCursor; each answer checked whole. */
  async function pages(limit: number): Promise<Project[][]> {
    const all: Project[][] = [];
    let cursor: string | null = null;
    do {
      const answer: Answer = await list(`?limit=${limit}${cursor === null ? '' : `&cursor=${cursor}`}`);
      expect(answer.status, answer.text).toBe(200);
      expect(Object.keys(answer.body).sort()).toEqual(['nextCursor', 'projects']);
      expect(answer.body.projects.length).toBeLessThanOrEqual(limit);
      all.push(answer.body.projects as Project[]);
      cursor = answer.body.nextCursor as string | null;
      expect(all.length).toBeLessThanOrEqual(expected.length + 1);
    } while (cursor !== null);
    return all;
  }

  it('answers a plain call with the whole list of active projects by slug, and nothing else (JSON that quotes every name)', async () => {
    const answer = await list('');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(answer.body).toEqual({ projects: expected });
    expect(Object.keys(answer.body)).toEqual(['projects']);
    expect(answer.body.projects.map((project: Project) => Object.keys(project))).toEqual(
      expected.map(() => ['id', 'slug', 'name']),
    );
    expect(answer.body.projects.map((project: Project) => project.name)).toEqual(expect.arrayContaining(NAMES));
    expect(Number(answer.headers.get('content-length'))).toBe(Buffer.byteLength(answer.text));
  });

  it('answers an organization without active projects with an empty list', async () => {
    expect((await list('', empty.key)).body).toEqual({ projects: [] });
    expect((await list('?limit=5', empty.key)).body).toEqual({ projects: [], nextCursor: null });
  });

  it.each([1, 2, 3, 5, SLUGS.length, SLUGS.length + 1, SLUGS.length + 2, 1000])(
    'pages through the same list with limit=%i',
    async (limit) => {
      const all = await pages(limit);
      expect(all.flat()).toEqual(expected);
      // Full pages but the last, and no empty page after a full one.
      expect(all.length).toBe(Math.ceil(expected.length / limit));
      expect(all.slice(0, -1).every((page) => page.length === limit)).toBe(true);
    },
  );

  it('a cursor alone lists the rest; a cursor names a slug, so a project deactivated meanwhile neither shifts nor repeats a page', async () => {
    const first = await list('?limit=3');
    const cursor = first.body.nextCursor as string;
    const rest = await list(`?cursor=${cursor}`);
    expect(rest.body).toEqual({ projects: expected.slice(3), nextCursor: null });
    const named = expected[2] as Project;
    await hub.sql`update projects set active = false where id = ${named.id}`;
    try {
      expect((await list(`?limit=2&cursor=${cursor}`)).body.projects).toEqual(expected.slice(3, 5));
      expect((await list('?limit=3')).body.projects).toEqual([expected[0], expected[1], expected[3]]);
    } finally {
      await hub.sql`update projects set active = true where id = ${named.id}`;
    }
  });

  it("never lists another organization's projects, whatever the cursor", async () => {
    const mine = await list('?limit=1');
    const theirs = await list(`?cursor=${mine.body.nextCursor as string}`, other.key);
    expect(theirs.status).toBe(200);
    const slugs = (theirs.body.projects as Project[]).map((project) => project.slug);
    expect(slugs.every((slug) => slug === 'b1')).toBe(true);
    expect((await list('', other.key)).body.projects.map((project: Project) => project.slug)).toEqual(['b1']);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=1001', 'limit'],
    ['limit=-1', 'limit'],
    ['limit=2.5', 'limit'],
    ['limit=ten', 'limit'],
    ['limit=', 'limit'],
    ['limit=1&limit=2', 'limit'],
    ['cursor=', 'cursor'],
    ['cursor=not%20a%20cursor', 'cursor'],
    ['cursor=%2F%2F%2F', 'cursor'],
    [`cursor=${'A'.repeat(85)}`, 'cursor'],
    // Base64url, but of something that is not a slug: upper case, a leading hyphen, bytes that are not UTF-8.
    [`cursor=${Buffer.from('App').toString('base64url')}`, 'cursor'],
    [`cursor=${Buffer.from('-a').toString('base64url')}`, 'cursor'],
    ['cursor=__8', 'cursor'],
    // The slug "ab" is YWI; YWJ decodes to it too, but is not the cursor the hub gives.
    ['cursor=YWJ', 'cursor'],
    ['limit=1&cursor=AAAA', 'cursor'],
  ])('refuses %s with 400 (invalid_request, naming the %s)', async (query, parameter) => {
    const answer = await list(`?${query}`);
    expectProblem(answer, 400, 'invalid_request');
    expect(answer.body.issues.length).toBeGreaterThan(0);
    expect(JSON.stringify(answer.body.issues)).toContain(parameter);
  });

  it('answers 401 and 403 before looking at the query', async () => {
    expectProblem(await list('?limit=0', 'hub_pk_nonsense'), 401, 'unauthorized');
    const lacking = await setUp(hub, { scopes: ['runs:read'] });
    expectProblem(await list('?cursor=%2F%2F', lacking.key), 403, 'insufficient_scope');
  });
});
