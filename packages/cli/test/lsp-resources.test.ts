// hub lsp's optional check of resources against a real hub (on the embedded PostgreSQL): with a
// stored login, a trigger that names a daemon the organization has not enrolled gets the hub's
// resource.unknown_daemon, after the offline diagnostics and without holding them up; without
// a login, nothing is asked and nothing more is shown.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { enrollDaemon, setUp } from '../../server/test/support/client.js';
import { hubOn } from '../../server/test/support/hub.js';
import { saveCredential } from '../src/credentials.js';
import { configurationYaml, triggerYaml } from './support/documents.js';
import { recordingProxy, type RecordingProxy } from './support/recording-proxy.js';
import { startLsp, uriOf, type LspClient } from './support/lsp.js';
import { writeTree } from './support/repo.js';

let hub: Awaited<ReturnType<typeof hubOn>>;
let ctx: Awaited<ReturnType<typeof setUp>>;
let root: string;
let client: LspClient | undefined;
let proxy: RecordingProxy;

beforeAll(async () => {
  hub = await hubOn('embedded');
  ctx = await setUp(hub);
  const enrolled = await enrollDaemon(hub, ctx.key, 'build-box', [{ provider: 'codex' }]);
  expect(enrolled.status, enrolled.text).toBe(201);
}, 120_000);

afterAll(async () => hub?.close());

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'hub-lsp-resources-'));
  proxy = await recordingProxy(hub.url);
});

afterEach(async () => {
  if (client !== undefined && client.child.exitCode === null) client.child.kill();
  client = undefined;
  await proxy.close();
  rmSync(root, { recursive: true, force: true });
});

const config = () => join(root, '.config');

it('with a stored login, shows the hub’s resource issues of a trigger and of the configuration of the project named', async () => {
  await saveCredential(config(), proxy.origin, ctx.key, 'api_key', { activate: true });
  writeTree(root, {
    '.hub/triggers/known.yml': triggerYaml('known', { daemon: 'build-box' }),
    '.hub/triggers/ghost.yml': triggerYaml('ghost', { daemon: 'ghost-box' }),
    '.hub/config.yml': configurationYaml([], { daemon: 'ghost-box' }),
  });
  client = await startLsp(root, { env: { HUB_CONFIG_DIR: config() }, initializationOptions: { project: ctx.project } });
  const ghost = uriOf(join(root, '.hub/triggers/ghost.yml'));
  const [issue] = await client.diagnostics(ghost, (list) => list.length > 0);
  expect(issue).toMatchObject({ code: 'resource.unknown_daemon', source: 'hub', severity: 1 });
  expect(issue!.range.start.line).toBe(
    triggerYaml('ghost', { daemon: 'ghost-box' })
      .split('\n')
      .findIndex((line) => line.includes('ghost-box')),
  );
  // The offline check came first: the same file was published clean before the hub answered.
  expect(client.published.find((params) => params.uri === ghost)?.diagnostics).toEqual([]);
  expect(client.latest(uriOf(join(root, '.hub/triggers/known.yml')))).toEqual([]);
  const configuration = await client.diagnostics(uriOf(join(root, '.hub/config.yml')), (list) => list.length > 0);
  expect(configuration.map((item) => item.code)).toEqual(['resource.unknown_daemon']);
  // Fixed in the editor: the answer for the new text clears it.
  await client.open(ghost, triggerYaml('ghost', { daemon: 'build-box' }));
  await client.diagnostics(ghost, (list) => list.length === 0);
  const asked = proxy.requests.map((request) => `${request.method} ${request.path}`);
  expect(new Set(asked)).toEqual(new Set(['POST /api/v1/triggers/validate', 'POST /api/v1/configurations/validate']));
  // Each text once: a later check of unchanged files is answered from the cache.
  const bodies = proxy.requests.map((request) => request.body.toString());
  expect(new Set(bodies).size).toBe(bodies.length);
});

it('without a login (a hub named, no credential) asks no hub and shows only the offline issues', async () => {
  writeTree(root, {
    '.hub/triggers/ghost.yml': triggerYaml('ghost', { daemon: 'ghost-box' }),
    '.hub/triggers/bad.yml': triggerYaml('bad').replace('enabled: true', 'enabled: maybe'),
  });
  client = await startLsp(root, { env: { HUB_CONFIG_DIR: config(), HUB_URL: proxy.origin } });
  await client.diagnostics(uriOf(join(root, '.hub/triggers/bad.yml')), (list) => list.length > 0);
  // Once the files were checked, a later check of the same files still shows nothing from a hub.
  await client.open(uriOf(join(root, '.hub/triggers/bad.yml')), triggerYaml('bad'));
  await client.diagnostics(uriOf(join(root, '.hub/triggers/bad.yml')), (list) => list.length === 0);
  expect(client.latest(uriOf(join(root, '.hub/triggers/ghost.yml')))).toEqual([]);
  expect(await client.stop()).toBe(0);
  expect(proxy.requests).toEqual([]);
});
