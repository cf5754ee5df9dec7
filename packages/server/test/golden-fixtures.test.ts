// The compiler's golden cases (test-fixtures/) through the hub's own validate operations, once:
// a configuration or bundle case through POST /api/v1/configurations/validate, a trigger case
// through POST /api/v1/triggers/validate. An invalid case answers 422 with exactly its expected
// issues (codes, pointers, files, positions); a valid one compiles on the hub too, and a case with a
// catalog meets its expected resource issues in an organization whose daemons are that catalog.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  loadFixtures,
  type ExpectedIssue,
  type Fixture,
  type ResourceCatalogFixture,
} from '../../../test-fixtures/load.js';
import { call, enrollDaemon, setUp } from './support/client.js';
import { hubOn } from './support/hub.js';

/**
 * Cases the hub refuses before it compiles, by design, each with the reason: the request's own
 * validation (400) speaks of them, as the compiler cannot. Any other case that fails here is a bug.
 */
const REFUSED_AS_REQUESTS: Record<string, string> = Object.fromEntries(
  Object.entries({
    "the document's schema types a partial's content as a string (400 request.type)": [
      'configuration/partial-content-not-a-string',
    ],
  }).flatMap(([reason, ids]) => ids.map((id) => [id, reason])),
);

type Shape = ExpectedIssue;
const shape = (issue: Shape): Shape => {
  const out: Shape = { code: issue.code, pointer: issue.pointer };
  if (issue.file !== undefined) out.file = issue.file;
  if (issue.line !== undefined) out.line = issue.line;
  if (issue.column !== undefined) out.column = issue.column;
  return out;
};

const fixtures = loadFixtures();

describe('the golden cases through the hub', () => {
  let hub: Awaited<ReturnType<typeof hubOn>>;
  let plain: Awaited<ReturnType<typeof setUp>>;
  /** An organization whose daemons are a case's catalog, one per catalog. */
  const withCatalog = new Map<string, Promise<Awaited<ReturnType<typeof setUp>>>>();

  const organizationFor = (catalog: ResourceCatalogFixture | undefined) => {
    if (catalog === undefined) return Promise.resolve(plain);
    const key = JSON.stringify(catalog);
    let org = withCatalog.get(key);
    if (org === undefined) {
      org = (async () => {
        const ctx = await setUp(hub);
        for (const daemon of catalog.daemons)
          expect((await enrollDaemon(hub, ctx.key, daemon.name, daemon.runtimes)).status).toBe(201);
        return ctx;
      })();
      withCatalog.set(key, org);
    }
    return org;
  };

  const validate = async (fixture: Fixture) => {
    const ctx = await organizationFor(fixture.catalog);
    if (fixture.kind === 'trigger')
      return call(hub, 'POST', '/api/v1/triggers/validate', { token: ctx.key, body: { yaml: fixture.yaml ?? '' } });
    const body =
      fixture.kind === 'bundle'
        ? { projectSlug: ctx.project, files: fixture.files }
        : { projectSlug: ctx.project, yaml: fixture.yaml ?? '', partials: fixture.files };
    return call(hub, 'POST', '/api/v1/configurations/validate', { token: ctx.key, body });
  };

  beforeAll(async () => {
    hub = await hubOn('embedded');
    plain = await setUp(hub);
  }, 120_000);
  afterAll(async () => hub?.close());

  it.each(fixtures.filter((fixture) => REFUSED_AS_REQUESTS[fixture.id] !== undefined).map((f) => [f.id, f] as const))(
    '%s is refused as a request (400), before any compile',
    async (_id, fixture) => {
      const answer = await validate(fixture);
      expect(answer.status).toBe(400);
      expect(answer.body.code).toBe('invalid_request');
    },
  );

  it.each(fixtures.filter((fixture) => REFUSED_AS_REQUESTS[fixture.id] === undefined).map((f) => [f.id, f] as const))(
    '%s',
    async (_id, fixture) => {
      const answer = await validate(fixture);
      const problem = fixture.kind === 'trigger' ? 'invalid_trigger' : 'invalid_configuration';
      const issues = (answer.body?.issues ?? []) as Shape[];
      // The compiler's did-you-mean data stays on the hub: the document's FieldIssue has no such member.
      expect(issues.filter((issue) => 'suggestion' in issue)).toEqual([]);
      if (fixture.issues !== undefined) {
        expect(answer.status).toBe(422);
        expect(answer.body.code).toBe(problem);
        expect(issues.map(shape)).toEqual(fixture.issues.map(shape));
      } else if (fixture.catalog !== undefined) {
        const expected = (fixture.resourceIssues ?? []).map(shape);
        expect(answer.status).toBe(expected.length === 0 ? 200 : 422);
        expect(issues.map(shape)).toEqual(expected);
      } else {
        // It compiles on the hub: at most, what it names is missing from an organization without daemons.
        expect([200, 422]).toContain(answer.status);
        expect(issues.filter((issue) => !issue.code.startsWith('resource.')).map(shape)).toEqual([]);
      }
    },
  );
});
