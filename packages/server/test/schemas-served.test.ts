// GET /schemas/<file>: the YAML documents' JSON Schemas, for editors, from a real hub. Each is the
// published file but for its $id, which is the URL it was fetched from.
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { get, type IncomingMessage } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './support/client.js';
import { hubOn } from './support/hub.js';

const FILES = [
  'configuration.schema.json',
  'trigger.schema.json',
  'legacy-hub.schema.json',
  'legacy-workflow.schema.json',
];
const resolve = createRequire(import.meta.url).resolve;
const published = (file: string) =>
  JSON.parse(readFileSync(resolve(`@hub/schemas/schemas/${file}`), 'utf8')) as Record<string, unknown>;

describe('the hub serves the YAML schemas', () => {
  let hub: Awaited<ReturnType<typeof hubOn>>;

  beforeAll(async () => {
    hub = await hubOn('external');
  }, 120_000);
  afterAll(async () => hub?.close());

  it.each(FILES)('GET /schemas/%s: the file, its $id the URL fetched, without a credential', async (file) => {
    const url = `${hub.url}/schemas/${file}`;
    const answer = await call(hub, 'GET', `/schemas/${file}`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/schema+json; charset=utf-8');
    expect(answer.headers.get('cache-control')).toBe('public, max-age=300');
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    expect(answer.body.$id).toBe(url);
    const file$ = published(file);
    expect(file$.$id).toMatch(/^urn:hub:schema:/);
    expect({ ...answer.body, $id: file$.$id }).toEqual(file$);
    // Formatted as the file is: an editor shows the same lines.
    expect(answer.text).toBe(`${JSON.stringify({ ...file$, $id: url }, null, 2)}\n`);
    // Nothing refers outside the document, so the new $id changes no resolution.
    const refs = [...answer.text.matchAll(/"\$ref": "([^"]*)"/g)].map((match) => match[1]);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) expect(ref).toMatch(/^#\/\$defs\//);
  });

  it('answers a matching If-None-Match with 304, and another ETag with the body', async () => {
    const first = await call(hub, 'GET', '/schemas/trigger.schema.json');
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const again = await conditional(`${hub.url}/schemas/trigger.schema.json`, etag as string);
    expect(again).toEqual({ status: 304, text: '' });
    const other = await conditional(`${hub.url}/schemas/trigger.schema.json`, '"something-else"');
    expect(other.status).toBe(200);
    expect(JSON.parse(other.text).$id).toBe(`${hub.url}/schemas/trigger.schema.json`);
    // Each schema has its own tag.
    const tags = await Promise.all(
      FILES.map(async (file) => (await call(hub, 'GET', `/schemas/${file}`)).headers.get('etag')),
    );
    expect(new Set(tags).size).toBe(FILES.length);
  });

  it.each([
    'common.json',
    'configuration.json',
    'Problem.schema.json',
    'configuration.schema.json.bak',
    '..%2Fopenapi.json',
  ])('GET /schemas/%s: 404 problem', async (file) => {
    const answer = await call(hub, 'GET', `/schemas/${file}`);
    expect(answer.status).toBe(404);
    expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(answer.body).toMatchObject({ code: 'not_found', status: 404 });
  });

  it('GET /schemas (no file) is not found, POST is not allowed', async () => {
    expect((await call(hub, 'GET', '/schemas')).status).toBe(404);
    const post = await call(hub, 'POST', '/schemas/configuration.schema.json', { body: {} });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET');
  });
});

describe('the $id follows the hub public URL', () => {
  let hub: Awaited<ReturnType<typeof hubOn>>;
  let direct: string;
  const PUBLIC = 'https://hub.example.test:8443';

  beforeAll(async () => {
    // The hub prints its public URL, not its address: it is given a port picked here.
    const port = await freePort();
    direct = `http://127.0.0.1:${port}`;
    hub = await hubOn('external', { PORT: String(port), HUB_PUBLIC_URL: `${PUBLIC}/` });
  }, 120_000);
  afterAll(async () => hub?.close());

  it('names HUB_PUBLIC_URL (without its trailing slash), not the address the request came to', async () => {
    expect(hub.url).toBe(PUBLIC);
    for (const file of FILES)
      expect((await call({ url: direct }, 'GET', `/schemas/${file}`)).body.$id).toBe(`${PUBLIC}/schemas/${file}`);
  });
});

/**
 * A GET with If-None-Match, through node:http: fetch() adds `Cache-Control: no-cache` to a
 * conditional request (the Fetch standard's no-store mode), which no server answers with a 304.
 */
async function conditional(url: string, etag: string): Promise<{ status: number; text: string }> {
  const req = get(url, { headers: { 'if-none-match': etag } });
  const [res] = (await once(req, 'response')) as [IncomingMessage];
  let text = '';
  for await (const chunk of res) text += (chunk as Buffer).toString();
  return { status: res.statusCode ?? 0, text };
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return port;
}
