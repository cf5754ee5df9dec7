// A body too large, as `hub deploy` shows it: the hub's 413 names the operation's limit, and one
// from a proxy in front of the hub (which names none) says where it came from.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { setUp } from '../../server/test/support/client.js';
import { hubOn } from '../../server/test/support/hub.js';
import { triggerYaml } from './support/documents.js';
import { hubIn, writeTree } from './support/repo.js';

let hub: Awaited<ReturnType<typeof hubOn>>;
let ctx: Awaited<ReturnType<typeof setUp>>;
let dir: string;

beforeAll(async () => {
  hub = await hubOn('external');
  ctx = await setUp(hub);
}, 120_000);

afterAll(async () => hub?.close());

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hub-too-large-'));
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

const deploy = (origin: string) =>
  hubIn(dir, ['deploy', origin], { HUB_CONFIG_DIR: join(dir, '.config'), HUB_API_KEY: ctx.key });

describe('hub deploy with a body too large', () => {
  it("shows the hub's 413 with the limit it names", async () => {
    // A comment makes the trigger file larger than the 16 MiB the hub reads for a document.
    writeTree(dir, { '.hub/triggers/big.yml': `${triggerYaml('big')}# ${'x'.repeat(16 * 1024 * 1024)}\n` });
    const { code, stderr } = await deploy(hub.url);
    expect(stderr).toMatch(/^\.hub\/triggers\/big\.yml: invalid: .*at most 16 MiB.*payload_too_large/m);
    expect(code).toBe(1);
  }, 60_000);

  it('says that a 413 without a problem came from a proxy in front of the hub', async () => {
    const proxy: Server = createServer((req, res) => {
      req.resume();
      res
        .writeHead(413, { 'content-type': 'text/html' })
        .end('<html><body><h1>413 Request Entity Too Large</h1></body></html>\n');
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = proxy.address() as { port: number };
      writeTree(dir, { '.hub/triggers/a.yml': triggerYaml('a') });
      const { code, stderr } = await deploy(`http://127.0.0.1:${port}`);
      expect(stderr).toContain('HTTP 413');
      expect(stderr).toMatch(/proxy in front of it/);
      expect(code).toBe(1);
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  });
});
