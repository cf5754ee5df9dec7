import { existsSync, mkdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './support/client.js';
import { hubOn } from './support/hub.js';

// Debian's Chromium (apt-get install chromium); .ci/run installs it. Elsewhere without it the
// browser check is skipped, and says so.
const CHROMIUM = process.env.HUB_TEST_CHROMIUM ?? '/usr/bin/chromium';
const available = existsSync(CHROMIUM) || process.env.CI === 'true';
const screenshots = fileURLToPath(new URL('../../../node_modules/.cache/screenshots/', import.meta.url));

describe.skipIf(!available)('the API reference in a browser', () => {
  let hub: Awaited<ReturnType<typeof hubOn>>;
  let browser: Browser;

  beforeAll(async () => {
    hub = await hubOn('external');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        // Every host but the hub's is unreachable: anything fetched from elsewhere would fail.
        '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
      ],
    });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await hub?.close();
  });

  it('renders every operation from the hub alone, and is photographed', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 2000 } });
    const requested: string[] = [];
    const failed: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    page.on('requestfailed', (request) => failed.push(request.url()));
    await page.goto(`${hub.url}/api/reference`);
    await page.waitForSelector('.opblock', { timeout: 30_000 });
    const operations = await page.locator('.opblock-summary-path').allTextContents();
    expect(operations.map((path) => path.replace(/\u200b/g, ''))).toEqual(
      expect.arrayContaining([
        '/api/v1/projects',
        '/api/v1/configurations/validate',
        '/api/v1/configurations/install',
        '/api/v1/triggers/install',
        '/api/v1/daemons/enroll',
      ]),
    );
    const elsewhere = requested.filter((url) => !url.startsWith(`${hub.url}/`) && !url.startsWith('data:'));
    expect(elsewhere).toEqual([]);
    expect(failed).toEqual([]);
    mkdirSync(screenshots, { recursive: true });
    const file = `${screenshots}api-reference.png`;
    await page.screenshot({ path: file, fullPage: false });
    expect(statSync(file).size).toBeGreaterThan(20_000);
  }, 60_000);

  it('serves the page and its assets with a policy that allows only its own origin', async () => {
    const answer = await call(hub, 'GET', '/api/reference');
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(answer.headers.get('content-security-policy')).not.toMatch(/https?:/);
    expect((await call(hub, 'GET', '/api/reference/assets/swagger-ui-bundle.js')).status).toBe(200);
    expect((await call(hub, 'GET', '/api/reference/assets/..%2Fpackage.json')).status).toBe(404);
    expect((await call(hub, 'GET', '/api/reference/assets/index.html')).status).toBe(404);
  });
});
