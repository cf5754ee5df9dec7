import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { issueCodes } from '../src/index.js';

const doc = readFileSync(new URL('../../../docs/issue-codes.md', import.meta.url), 'utf8');

describe('docs/issue-codes.md', () => {
  it('documents every issue code, and no code that does not exist', () => {
    const documented = [...doc.matchAll(/^### `([a-z_.]+)`$/gm)].map((match) => match[1] as string);
    // The server's request-body and content codes and the CLI's discovery codes are documented in the same file, in their own sections.
    const compiler = documented.filter(
      (code) =>
        !code.startsWith('request.') &&
        !code.startsWith('discovery.') &&
        !code.startsWith('repository.') &&
        !code.startsWith('webhook.'),
    );
    expect([...compiler].sort()).toEqual(Object.keys(issueCodes).sort());
  });
});
