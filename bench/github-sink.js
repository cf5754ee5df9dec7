// @ts-check
// A sink for the hub's calls to GitHub's REST API under load (bench/github.bench.js): the hub runs
// with HUB_GITHUB_API_URL pointing here, since a bench reaches no github.com and does not measure
// reporting. It answers what the hub's reporter calls with the least GitHub-shaped JSON that the
// hub reads back, and counts the calls:
//
//   POST  /app/installations/{id}/access_tokens            201 { token, expires_at (an hour ahead) }
//   POST  /repos/{o}/{r}/issues/{n}/comments                201 { id }
//   PATCH /repos/{o}/{r}/issues/comments/{id}               200 { id }
//   POST  /repos/{o}/{r}/issues/{n}/reactions,
//         /repos/{o}/{r}/issues/comments/{id}/reactions,
//         /repos/{o}/{r}/pulls/comments/{id}/reactions      201 { id, content }
//   GET   /repos/{o}/{r}/pulls/{n}                          200 { head: { sha, ref } }
//   POST  /repos/{o}/{r}/check-runs                         201 { id }
//   PATCH /repos/{o}/{r}/check-runs/{id}                    200 { id }
//   anything else                                           404
//
// It is a sink for load, not a checked stand-in: it checks neither the JWT, nor the token, nor the
// request bodies against GitHub's description. The tests use packages/server/test/support/github/,
// which checks every request against GitHub's OpenAPI description.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';

/** Method, path pattern, status, answer, and the name the counts use. @type {[string, RegExp, number, (match: RegExpExecArray, id: number, body: any) => unknown, string][]} */
const ROUTES = [
  [
    'POST',
    /^\/app\/installations\/\d+\/access_tokens$/,
    201,
    () => ({
      token: `ghs_${randomBytes(18).toString('hex')}`,
      expires_at: new Date(Date.now() + 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    }),
    'POST /app/installations/{id}/access_tokens',
  ],
  [
    'POST',
    /^\/repos\/[^/]+\/[^/]+\/issues\/\d+\/comments$/,
    201,
    (_, id) => ({ id }),
    'POST /repos/{o}/{r}/issues/{n}/comments',
  ],
  [
    'PATCH',
    /^\/repos\/[^/]+\/[^/]+\/issues\/comments\/(\d+)$/,
    200,
    (match) => ({ id: Number(match[1]) }),
    'PATCH /repos/{o}/{r}/issues/comments/{id}',
  ],
  [
    'POST',
    /^\/repos\/[^/]+\/[^/]+\/(?:issues\/\d+|issues\/comments\/\d+|pulls\/comments\/\d+)\/reactions$/,
    201,
    (_, id, body) => ({ id, content: typeof body?.content === 'string' ? body.content : 'eyes' }),
    'POST /repos/{o}/{r}/…/reactions',
  ],
  [
    'GET',
    /^\/repos\/[^/]+\/[^/]+\/pulls\/(\d+)$/,
    200,
    (match) => ({ number: Number(match[1]), head: { sha: 'a'.repeat(40), ref: `bench-${match[1]}` } }),
    'GET /repos/{o}/{r}/pulls/{n}',
  ],
  ['POST', /^\/repos\/[^/]+\/[^/]+\/check-runs$/, 201, (_, id) => ({ id }), 'POST /repos/{o}/{r}/check-runs'],
  [
    'PATCH',
    /^\/repos\/[^/]+\/[^/]+\/check-runs\/(\d+)$/,
    200,
    (match) => ({ id: Number(match[1]) }),
    'PATCH /repos/{o}/{r}/check-runs/{id}',
  ],
];

/**
 * Starts the sink on 127.0.0.1 (a free port). `calls` counts the answered calls by route
 * (`POST /repos/{o}/{r}/issues/{n}/comments` and so on), and the others as `404 <method> <path>`.
 * `writes` holds when each call other than a GET or a token came (performance.now(), the last
 * 100,000), to see how the hub spaces them.
 * @returns {Promise<{ url: string, calls: Map<string, number>, writes: number[], close: () => Promise<void> }>}
 */
export async function startGitHubSink() {
  /** @type {Map<string, number>} */
  const calls = new Map();
  /** @type {number[]} */
  const writes = [];
  let nextId = 1;
  const count = (/** @type {string} */ name) => calls.set(name, (calls.get(name) ?? 0) + 1);
  const server = createServer((req, res) => {
    const chunks = /** @type {Buffer[]} */ ([]);
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://sink').pathname;
      let body;
      try {
        body = chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = undefined;
      }
      const route = ROUTES.find(([method, pattern]) => method === req.method && pattern.test(path));
      /** @type {Record<string, string>} */
      const headers = { 'content-type': 'application/json; charset=utf-8' };
      if (route === undefined) {
        count(`404 ${req.method} ${path}`);
        res.writeHead(404, headers).end(JSON.stringify({ message: 'Not Found' }));
        return;
      }
      const [, pattern, status, answer, name] = route;
      count(name);
      if (req.method !== 'GET' && !name.includes('access_tokens') && writes.push(performance.now()) > 100_000)
        writes.shift();
      res
        .writeHead(status, headers)
        .end(JSON.stringify(answer(/** @type {RegExpExecArray} */ (pattern.exec(path)), nextId++, body)));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${address.port}`,
    calls,
    writes,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
