// The hub's failed answers as people read them: title, detail, status, and each field issue as
// `file:line:column: code message`.
import { describe, expect, it } from 'vitest';
import { renderProblem } from '../src/hub-client.js';

const answer = (status: number, body: unknown, text = JSON.stringify(body)) => ({
  status,
  headers: new Headers(),
  body,
  text,
});

const PROBLEM = {
  type: 'http://hub.example/problems/invalid_configuration',
  title: 'Invalid configuration',
  status: 422,
  detail: 'The configuration is invalid: 4 issues; see issues.',
  code: 'invalid_configuration',
  requestId: 'b4bcc6cf-cb8a-454d-bea5-e28c12a1451d',
  issues: [
    {
      pointer: '/triggers/0/steps/0/agent/provider',
      code: 'schema.required',
      message: 'provider is required.',
      file: '.hub/partials/steps.yml',
      line: 3,
      column: 7,
    },
    {
      pointer: '/environments/0/daemon',
      code: 'resource.unknown_daemon',
      message: 'No daemon named "dev-box" is enrolled.',
      line: 2,
      column: 43,
    },
    { pointer: '/partials/3/path', code: 'path.unsafe', message: 'The path leaves the repository.' },
    { pointer: '', code: 'yaml.syntax', message: 'Not YAML.', line: 9 },
  ],
};

describe('renderProblem', () => {
  it('puts the title, detail, status and code first, then one line per issue, then the request id', () => {
    expect(renderProblem(answer(422, PROBLEM), { file: '.hub/config.yml' }).split('\n')).toEqual([
      'Invalid configuration: The configuration is invalid: 4 issues; see issues. (HTTP 422 Unprocessable Entity, invalid_configuration)',
      '.hub/partials/steps.yml:3:7: schema.required provider is required.',
      '.hub/config.yml:2:43: resource.unknown_daemon No daemon named "dev-box" is enrolled.',
      '.hub/config.yml: path.unsafe The path leaves the repository. (at /partials/3/path)',
      '.hub/config.yml:9: yaml.syntax Not YAML.',
      'Request id: b4bcc6cf-cb8a-454d-bea5-e28c12a1451d',
    ]);
  });

  it('names the request as the file of an issue without one when no file is given', () => {
    const rendered = renderProblem(
      answer(400, {
        title: 'Bad request',
        status: 400,
        issues: [
          { pointer: '/yaml', code: 'request.type', message: 'yaml must be a string.' },
          { pointer: '', code: 'request.json', message: 'Not JSON.' },
        ],
      }),
    );
    expect(rendered.split('\n')).toEqual([
      'Bad request (HTTP 400 Bad Request)',
      '<request>: request.type yaml must be a string. (at /yaml)',
      '<request>: request.json Not JSON. (at the document root)',
    ]);
  });

  it.each([
    [
      401,
      { title: 'Authentication required', status: 401, detail: 'Send a valid key.', code: 'unauthorized' },
      'Authentication required: Send a valid key. (HTTP 401 Unauthorized, unauthorized)',
    ],
    [403, { detail: 'The key lacks daemons:enroll.' }, 'The key lacks daemons:enroll. (HTTP 403 Forbidden)'],
    [400, { error: 'invalid_request' }, 'The hub answered HTTP 400 Bad Request: invalid_request'],
    [403, { error: 'actor_forbidden' }, 'The hub answered HTTP 403 Forbidden: actor_forbidden'],
    [502, undefined, 'The hub answered HTTP 502 Bad Gateway: <html>bad gateway</html>', '<html>bad gateway</html>\n'],
    [503, undefined, 'The hub answered HTTP 503 Service Unavailable with an empty body', ''],
    [599, [1, 2], 'The hub answered HTTP 599: [1,2]'],
  ])('renders a %i answer %j', (status, body, expected, text?: string) => {
    expect(renderProblem(answer(status, body, text ?? JSON.stringify(body)))).toBe(expected);
  });

  it('says when to try again when the hub answers with Retry-After (a 429 or a 503)', () => {
    const body = {
      title: 'Too many requests',
      status: 429,
      detail: 'Too many failed authentications from this address.',
      code: 'too_many_requests',
      requestId: 'b4bcc6cf-cb8a-454d-bea5-e28c12a1451d',
    };
    const throttled = { status: 429, headers: new Headers({ 'retry-after': '42' }), body, text: JSON.stringify(body) };
    expect(renderProblem(throttled).split('\n')).toEqual([
      'Too many requests: Too many failed authentications from this address. (HTTP 429 Too Many Requests, too_many_requests)',
      'Try again in 42 s.',
      'Request id: b4bcc6cf-cb8a-454d-bea5-e28c12a1451d',
    ]);
    // An HTTP date is not a number of seconds: left out rather than misread.
    const dated = { ...throttled, headers: new Headers({ 'retry-after': 'Wed, 21 Oct 2026 07:28:00 GMT' }) };
    expect(renderProblem(dated)).not.toContain('Try again');
  });

  it('points at where a redirect leads', () => {
    const redirect = {
      status: 301,
      headers: new Headers({ location: 'https://hub.example.com/api/v1/projects' }),
      body: undefined,
      text: '',
    };
    expect(renderProblem(redirect)).toBe(
      'The hub answered HTTP 301 Moved Permanently, a redirect to https://hub.example.com/api/v1/projects: give the origin it redirects to.',
    );
  });

  it('keeps terminal control sequences from the hub off the screen', () => {
    const rendered = renderProblem(
      answer(400, {
        title: 'Bad\u001b[2J request',
        issues: [{ pointer: '/a', code: 'x', message: 'two\nlines', line: 1, column: 1 }],
      }),
    );
    expect(rendered).toBe('Bad [2J request (HTTP 400 Bad Request)\n<request>:1:1: x two lines');
  });
});
