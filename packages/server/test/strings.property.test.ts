// Every string the API takes, in bodies, path and query parameters and the daemon protocol, may
// hold anything: NUL, lone surrogates, other control characters. None of them may answer 500,
// and validate never says valid for what install then refuses.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationsOf, type Node, type OperationSpec } from '../src/openapi/contract.js';
import { call, setUp, type Answer } from './support/client.js';
import { TestDaemon } from './support/daemon.js';
import { configurationPartials, configurationYaml, exampleDaemons, triggerYaml } from './support/documents.js';
import { hubOn } from './support/hub.js';
import { committedDocument } from './support/openapi.js';

const FORBIDDEN = [
  '\u0000',
  '\ud800',
  '\udfff',
  '\udc00\ud800',
  '\u0001',
  '\u001b',
  '\u007f',
  '\u0085',
  '\u2028',
  '\ufeff',
];

/** A string with at least one hostile character somewhere in it. */
const hostile = fc
  .tuple(
    fc.string({ unit: 'binary', maxLength: 12 }),
    fc.constantFrom(...FORBIDDEN),
    fc.string({ unit: 'binary', maxLength: 12 }),
  )
  .map(([before, bad, after]) => `${before}${bad}${after}`);

/** A path segment as its UTF-16 units say, lone surrogates as the bytes a careless client would send. */
function segment(value: string): string {
  let out = '';
  for (const char of value) {
    const unit = char.charCodeAt(0);
    if (char.length === 1 && unit >= 0xd800 && unit <= 0xdfff) {
      out += [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)]
        .map((byte) => `%${byte.toString(16).toUpperCase()}`)
        .join('');
    } else {
      out += encodeURIComponent(char);
    }
  }
  return out;
}

/** Every string leaf of a JSON value, as a path of keys. */
function stringLeaves(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (typeof value === 'string') return [at];
  if (Array.isArray(value)) return value.flatMap((item, index) => stringLeaves(item, [...at, index]));
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([key, item]) => stringLeaves(item, [...at, key]));
  return [];
}

function replaced(value: unknown, path: (string | number)[], leaf: string): unknown {
  if (path.length === 0) return leaf;
  const copy = structuredClone(value) as Record<string | number, unknown>;
  const [head, ...rest] = path as [string | number, ...(string | number)[]];
  copy[head] = replaced(copy[head], rest, leaf);
  return copy;
}

describe('hostile strings in every string of every operation', () => {
  let hub: Awaited<ReturnType<typeof hubOn>>;
  let ctx: Awaited<ReturnType<typeof setUp>>;
  let daemon: TestDaemon;
  const document = committedDocument() as Node;
  const operations = operationsOf(document);

  beforeAll(async () => {
    hub = await hubOn('external');
    ctx = await setUp(hub);
    for (const example of exampleDaemons) await TestDaemon.enroll(hub, ctx.key, example.name, example.runtimes);
    daemon = await TestDaemon.enroll(hub, ctx.key, 'property-box');
  }, 120_000);
  afterAll(async () => hub?.close());

  const example = (operation: OperationSpec): unknown => {
    const media = (
      (operation.body === undefined
        ? undefined
        : ((document.paths as Node)[operation.path] as Node)[operation.method.toLowerCase()]) as Node | undefined
    )?.requestBody as Node | undefined;
    const examples = ((media?.content as Node | undefined)?.['application/json'] as Node | undefined)?.examples as
      Record<string, { value: unknown }> | undefined;
    return examples === undefined ? undefined : Object.values(examples)[0]?.value;
  };
  const params: Record<string, () => string> = {
    org: () => ctx.org,
    slug: () => ctx.project,
    id: () => randomUUID(),
    triggerRunId: () => randomUUID(),
    executionId: () => randomUUID(),
    code: () => 'daemon_offline',
    file: () => 'favicon-32x32.png',
    installationId: () => '12345',
    endpointId: () => randomUUID(),
    deliveryId: () => randomUUID(),
  };

  const send = (
    operation: OperationSpec,
    pathParams: Record<string, string>,
    body: unknown,
    query = '',
  ): Promise<Answer> => {
    const path = operation.path.replace(
      /\{([A-Za-z]+)\}/g,
      (_match, name: string) => pathParams[name] ?? segment((params[name] as () => string)()),
    );
    const full = `${path}${query}`;
    const { security } = operation;
    if (security.kind === 'daemon') return daemon.signed(operation.method, full, body);
    const token = security.kind === 'bearer' ? ctx.key : security.kind === 'admin' ? hub.adminToken : undefined;
    return call(hub, operation.method, full, {
      ...(token === undefined ? {} : { token }),
      ...(body === undefined ? {} : { body }),
    });
  };

  it('never answers 500, in a body field, a path parameter or a query parameter', async () => {
    let requests = 0;
    for (const operation of operations) {
      const body = example(operation);
      const fields = stringLeaves(body);
      const pathNames = operation.parameters
        .filter((parameter) => parameter.in === 'path')
        .map((parameter) => parameter.name);
      const queryNames = operation.parameters
        .filter((parameter) => parameter.in === 'query')
        .map((parameter) => parameter.name);
      for (const field of fields) {
        await fc.assert(
          fc.asyncProperty(hostile, async (leaf) => {
            const answer = await send(operation, {}, replaced(body, field, leaf));
            requests++;
            expect(
              answer.status,
              `${operation.operationId} /${field.join('/')} = ${JSON.stringify(leaf)}: ${answer.text.slice(0, 300)}`,
            ).toBeLessThan(500);
          }),
          { numRuns: 4 },
        );
      }
      for (const name of pathNames) {
        await fc.assert(
          fc.asyncProperty(hostile, async (value) => {
            const answer = await send(operation, { [name]: segment(value) }, body);
            requests++;
            expect(
              answer.status,
              `${operation.operationId} {${name}} = ${JSON.stringify(value)}: ${answer.text.slice(0, 300)}`,
            ).toBeLessThan(500);
          }),
          { numRuns: 4 },
        );
      }
      for (const name of queryNames) {
        await fc.assert(
          fc.asyncProperty(hostile, async (value) => {
            const answer = await send(operation, {}, body, `?${name}=${segment(value)}`);
            requests++;
            expect(
              answer.status,
              `${operation.operationId} ?${name}=${JSON.stringify(value)}: ${answer.text.slice(0, 300)}`,
            ).toBeLessThan(500);
          }),
          { numRuns: 4 },
        );
      }
    }
    expect(requests).toBeGreaterThan(150);
  }, 240_000);

  /** The YAML with one scalar's text made hostile, written as YAML escapes inside double quotes. */
  const escapedIn = (yaml: string, from: string, leaf: string) => {
    const escaped = [...leaf]
      .map((char) =>
        (char.length === 1 && char.charCodeAt(0) < 0x20) || /[\ud800-\udfff]/.test(char)
          ? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`
          : char === '"' || char === '\\'
            ? `\\${char}`
            : char,
      )
      .join('');
    return yaml.replace(from, `"${escaped}"`);
  };

  it.each([
    [
      'configuration',
      '/api/v1/configurations',
      (leaf: string) => ({
        projectSlug: ctx.project,
        yaml: escapedIn(configurationYaml, 'dev-lead', leaf),
        partials: configurationPartials,
      }),
    ],
    [
      'configuration partial',
      '/api/v1/configurations',
      (leaf: string) => ({
        projectSlug: ctx.project,
        yaml: configurationYaml,
        partials: [{ path: 'testing.md', content: leaf }],
      }),
    ],
    ['trigger', '/api/v1/triggers', (leaf: string) => ({ yaml: escapedIn(triggerYaml, 'ci-bot', leaf) })],
  ])(
    'validate says valid exactly when install installs: %s',
    async (_name, base, body) => {
      await fc.assert(
        fc.asyncProperty(fc.oneof(hostile, fc.string({ unit: 'grapheme', maxLength: 12 })), async (leaf) => {
          const sent = body(leaf);
          const validated = await call(hub, 'POST', `${base}/validate`, { token: ctx.key, body: sent });
          const installed = await call(hub, 'POST', `${base}/install`, { token: ctx.key, body: sent });
          const what = `${JSON.stringify(leaf)}: ${validated.status} ${validated.text.slice(0, 200)} / ${installed.status} ${installed.text.slice(0, 200)}`;
          expect(validated.status, what).toBeLessThan(500);
          expect(installed.status, what).toBeLessThan(500);
          expect(validated.status === 200, what).toBe(installed.status === 201);
          if (validated.status !== 200) expect(installed.body.code, what).toBe(validated.body.code);
        }),
        { numRuns: 12 },
      );
    },
    120_000,
  );
});
