// The one request validator: the document's schemas, checked by ajv, and its errors as field
// issues. Table-driven over real operations of the committed document; no hub needed.
import express from 'express';
import { describe, expect, it } from 'vitest';
import type { Hub } from '../src/hub.js';
import { createLogger } from '../src/http/logger.js';
import { mountOperations } from '../src/http/mount.js';
import { operationsOf, type Node } from '../src/openapi/contract.js';
import { ContractValidator } from '../src/openapi/validator.js';
import { committedDocument } from './support/openapi.js';

const document = committedDocument() as Node;
const validator = new ContractValidator(document);
const requests = new Map(
  operationsOf(document).map((operation) => [operation.operationId, validator.request(operation)]),
);
const jwk = { kty: 'OKP', crv: 'Ed25519', x: 'a'.repeat(43) };

/** The issues of a request as [code, pointer], or 'valid'. */
function issuesOf(
  operationId: string,
  input: { body?: unknown; params?: Record<string, string>; query?: Record<string, unknown> },
) {
  try {
    (requests.get(operationId) as { check: (input: object) => unknown }).check({
      body: undefined,
      params: {},
      query: {},
      ...input,
    });
    return 'valid';
  } catch (error) {
    return (error as { issues: { code: string; pointer: string }[] }).issues.map((issue) => [
      issue.code,
      issue.pointer,
    ]);
  }
}

describe('request validation against the document', () => {
  it.each([
    ['a shape A body', 'validateConfiguration', { body: { projectSlug: 'app', yaml: 'a: 1', partials: [] } }, 'valid'],
    [
      'a shape B body',
      'validateConfiguration',
      { body: { projectSlug: 'app', files: [{ path: '.hub/hub.yml', content: 'x' }] } },
      'valid',
    ],
    [
      'both shapes',
      'validateConfiguration',
      { body: { projectSlug: 'app', yaml: 'a: 1', files: [] } },
      [['request.shape', '']],
    ],
    ['neither shape', 'validateConfiguration', { body: { projectSlug: 'app' } }, [['request.shape', '']]],
    [
      "the closest shape's issues, unknown fields first",
      'validateConfiguration',
      { body: { projectSlug: 7, yaml: 'a: 1', partials: [{ path: 'a.md', content: 1 }], extra: 1 } },
      [
        ['request.unknown_field', '/extra'],
        ['request.type', '/projectSlug'],
        ['request.type', '/partials/0/content'],
      ],
    ],
    [
      'a bundle with partials',
      'validateConfiguration',
      { body: { projectSlug: 'app', files: [], partials: [] } },
      [['request.unknown_field', '/partials']],
    ],
    [
      'a bundle file of the wrong type, and one without content',
      'validateConfiguration',
      { body: { projectSlug: 'app', files: [{ path: '.hub/hub.yml', content: 5 }, { path: 'a' }] } },
      [
        ['request.type', '/files/0/content'],
        ['request.required', '/files/1'],
      ],
    ],
    ['no body at all', 'validateTrigger', {}, [['request.required', '']]],
    ['a list for a body', 'validateTrigger', { body: [] }, [['request.type', '']]],
    [
      "YAML with NUL: the compiler's to refuse (422), not the validator's",
      'validateTrigger',
      { body: { yaml: 'name: "\u0000"' } },
      'valid',
    ],
    [
      'a JWK of another kind: one issue at the key',
      'enrollDaemon',
      { body: { token: 't', name: 'box', publicKey: { kty: 'RSA', n: 'x' }, runtimes: [] } },
      [['request.type', '/publicKey']],
    ],
    [
      'a JWK with a private member: one issue at the key',
      'enrollDaemon',
      { body: { token: 't', name: 'box', publicKey: { ...jwk, d: 'x' }, runtimes: [] } },
      [['request.type', '/publicKey']],
    ],
    [
      'a runtime without a provider',
      'enrollDaemon',
      { body: { token: 't', name: 'box', publicKey: jwk, runtimes: [{ modes: ['edit'] }] } },
      [['request.required', '/runtimes/0']],
    ],
    [
      'every enrollment issue, in the order of the fields',
      'enrollDaemon',
      {
        body: {
          token: 7,
          name: 'Bad Name',
          publicKey: { kty: 'RSA' },
          runtimes: [{ provider: 'claude', extra: 1 }],
          replace: 'yes',
        },
      },
      [
        ['request.type', '/token'],
        ['request.pattern', '/name'],
        ['request.type', '/publicKey'],
        ['request.unknown_field', '/runtimes/0/extra'],
        ['request.type', '/replace'],
      ],
    ],
    [
      'anything but {} for an enrollment token',
      'issueEnrollmentToken',
      { body: { name: 'x' } },
      [['request.type', '']],
    ],
    ['{} for an enrollment token', 'issueEnrollmentToken', { body: {} }, 'valid'],
    [
      'NUL in a dispatch field',
      'dispatchManualRunB',
      { body: { projectSlug: 'app', trigger: 't\u0000', actor: 'a', deliveryKey: 'k' } },
      [['request.text', '/trigger']],
    ],
    [
      'a lone surrogate in a dispatch field',
      'dispatchManualRunA',
      { body: { projectSlug: 'app', trigger: 't', actor: 'a', deliveryKey: 'k', input: 'x\ud800' } },
      [['request.text', '/input']],
    ],
    [
      'other control characters in a dispatch field are text',
      'dispatchManualRunB',
      { body: { projectSlug: 'app', trigger: 't', actor: 'a\u0001\u007f', deliveryKey: 'k\u001b' } },
      'valid',
    ],
    [
      'a blank actor and an empty delivery key',
      'dispatchManualRunB',
      { body: { projectSlug: 'app', trigger: 't', actor: '  ', deliveryKey: '' } },
      [
        ['request.pattern', '/actor'],
        ['request.too_short', '/deliveryKey'],
      ],
    ],
    [
      'a delivery key of 256 characters',
      'dispatchManualRunB',
      { body: { projectSlug: 'app', trigger: 't', actor: 'a', deliveryKey: 'k'.repeat(256) } },
      [['request.too_long', '/deliveryKey']],
    ],
    [
      'a delivery key of 255 emoji: 255 characters, 510 UTF-16 units',
      'dispatchManualRunB',
      { body: { projectSlug: 'app', trigger: 't', actor: 'a', deliveryKey: '😀'.repeat(255) } },
      'valid',
    ],
    [
      'a delivery key of 256 emoji',
      'dispatchManualRunB',
      { body: { projectSlug: 'app', trigger: 't', actor: 'a', deliveryKey: '😀'.repeat(256) } },
      [['request.too_long', '/deliveryKey']],
    ],
    [
      'an actor of one emoji',
      'dispatchManualRunB',
      { body: { projectSlug: 'app', trigger: 't', actor: '😀', deliveryKey: 'k' } },
      'valid',
    ],
    ['a wait over 30 s', 'nextAssignment', { query: { wait: '31' } }, [['request.range', '']]],
    ['a wait that is no number', 'nextAssignment', { query: { wait: 'abc' } }, [['request.type', '']]],
    ['a wait of 30 s', 'nextAssignment', { query: { wait: '30' } }, 'valid'],
    ['NUL in a path parameter', 'getRun', { params: { triggerRunId: 'x\u0000' } }, [['request.text', '']]],
    [
      'an unknown status',
      'reportExecutionStatus',
      { params: { executionId: 'e' }, body: { status: 'done' } },
      [['request.enum', '/status']],
    ],
    [
      'a blank organization name',
      'createOrganization',
      { body: { slug: 'acme', name: ' ' } },
      [['request.pattern', '/name']],
    ],
    [
      'an unknown scope',
      'createApiKey',
      { params: { org: 'acme' }, body: { name: 'ci', scopes: ['projects:write'] } },
      [['request.enum', '/scopes/0']],
    ],
  ])('%s', (_name, operationId, input, expected) => {
    expect(issuesOf(operationId, input)).toEqual(expected);
  });

  it('says what is wrong in words: did you mean, the allowed fields, the hint of a pattern', () => {
    try {
      requests.get('createOrganization')?.check({ body: { slug: 'Bad', nme: 'x' }, params: {}, query: {} });
      expect.unreachable();
    } catch (error) {
      const messages = (error as { issues: { message: string }[] }).issues.map((issue) => issue.message);
      expect(messages).toContain('Unknown field "nme". Did you mean "name"? Allowed: slug, name.');
      expect(messages).toContain(
        'The field "slug" must be 1 to 63 lowercase letters, digits and hyphens, starting with a letter or digit.',
      );
    }
  });
});

describe('mounting from the document', () => {
  const hub = {
    options: { problemBase: 'http://hub.test', adminToken: 'unused', maxBodyBytes: 1024 },
    log: createLogger('error', () => {}),
  } as unknown as Hub;
  // `authenticate` for the operations that check their own credential (the GitHub webhook's signature).
  const noop = { handle: () => {}, authenticate: async () => {} };
  const all = () => Object.fromEntries(operationsOf(document).map((operation) => [operation.operationId, noop]));

  it('mounts a handler for each operation', () => {
    expect(() => mountOperations(express(), hub, document, validator, all())).not.toThrow();
  });

  it('refuses to start with an operation whose own credential check is missing', () => {
    expect(() =>
      mountOperations(express(), hub, document, validator, { ...all(), receiveGitHubWebhook: { handle: () => {} } }),
    ).toThrow(/receiveGitHubWebhook checks its own credential but its handler has no authenticate/);
  });

  it('refuses to start with an operation that has no handler', () => {
    const { getRun: _getRun, ...handlers } = all();
    expect(() => mountOperations(express(), hub, document, validator, handlers)).toThrow(/without a handler: getRun/);
  });

  it('refuses to start with a handler that the document does not describe', () => {
    expect(() =>
      mountOperations(express(), hub, document, validator, { ...all(), deleteEverything: noop } as never),
    ).toThrow(/does not have: deleteEverything/);
  });
});
