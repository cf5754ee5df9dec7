import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiValidator } from '../dist/http/openapi-validator.js';
import { checkDocument } from '../dist/openapi/check.js';
import { openApiDocument } from '../dist/openapi/document.js';
import { createLogger } from '../dist/http/logger.js';
import { jsonBody, problemHandler, requestContext } from '../dist/http/middleware.js';
import type { Hub } from '../dist/hub.js';

/**
 * The validator as the hub mounts it, behind a route that has no reader of its own: what the
 * backstop answers when a route's checks let through a request the document does not allow.
 */
describe('the OpenAPI validator behind the routes', () => {
  let url: string;
  let close: () => Promise<void>;

  beforeAll(async () => {
    const options = { problemBase: 'http://hub.test', adminToken: 'unused', maxBodyBytes: 1024 * 1024 };
    const log = createLogger('error', () => {});
    const app = express();
    app.use(requestContext(log));
    app.post('/api/v1/triggers/validate', jsonBody(options.maxBodyBytes), ...openApiValidator({ options } as unknown as Hub), (_req, res) => {
      res.json({ name: 'reached', valid: true });
    });
    app.use(problemHandler({ problemBase: options.problemBase, log }));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => new Promise((resolve) => server.close(() => resolve()));
  });
  afterAll(async () => close?.());

  const post = async (body: unknown) => {
    const response = await fetch(`${url}/api/v1/triggers/validate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return { status: response.status, type: response.headers.get('content-type'), body: (await response.json()) as any };
  };

  it('refuses a request the document does not allow with a 400 problem, an issue per difference', async () => {
    const wrongType = await post({ yaml: 7 });
    expect(wrongType.status).toBe(400);
    expect(wrongType.type).toMatch(/^application\/problem\+json/);
    expect(wrongType.body).toMatchObject({ code: 'invalid_request', status: 400 });
    expect(wrongType.body.issues).toEqual([expect.objectContaining({ code: 'request.schema', pointer: '/yaml', message: expect.stringMatching(/OpenAPI document/) })]);
    const extra = await post({ yaml: 'version: 1', extra: true });
    expect(extra.body.issues).toEqual([expect.objectContaining({ code: 'request.schema', pointer: '/extra' })]);
  });

  it('lets a request the document allows through to the handler', async () => {
    expect(await post({ yaml: 'version: 1' })).toMatchObject({ status: 200, body: { name: 'reached' } });
  });
});

describe('the startup check of the OpenAPI document', () => {
  const document = () => openApiDocument('http://hub.test', { maxBodyBytes: 1024 });

  it('compiles every schema of the document the hub serves', () => {
    expect(() => checkDocument(document())).not.toThrow();
  });

  it('stops on a schema that does not compile, naming it', () => {
    const dangling = document() as { components: { schemas: Record<string, unknown> } };
    dangling.components.schemas.Problem = { $ref: '#/components/schemas/Missing' };
    expect(() => checkDocument(dangling)).toThrow(/\/components\/schemas\/Problem: can't resolve reference/);
    const mistyped = document() as { paths: Record<string, { get: { responses: Record<string, { content: Record<string, { schema: unknown }> }> } }> };
    const listed = mistyped.paths['/api/v1/projects']?.get.responses['200']?.content['application/json'];
    if (listed === undefined) throw new Error('the document lists no projects response');
    listed.schema = { type: 'lits' };
    expect(() => checkDocument(mistyped)).toThrow(/\/paths\/~1api~1v1~1projects\/get\/responses\/200\/content\/application~1json\/schema: type must be/);
  });
});
