// Error pages for people: an unknown dashboard path, or a page that fails, answers a page in the
// dashboard's layout (with its navigation when signed in, the request id on a 500), while a client
// that asks for JSON, and every machine path, keeps the problem document as before.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browsable, launchBrowser, shoot } from './support/browser.js';
import { hubOn } from '../../server/test/support/hub.js';
import { arrange, page, type Hub } from './support/hub-session.js';

const HTML = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

describe('error pages', () => {
  let hub: Hub;
  let member = '';
  let browser: Browser | undefined;

  beforeAll(async () => {
    hub = await hubOn('external');
    ({ member } = await arrange(hub));
    if (browsable) browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await hub?.close();
  });

  it('answers an unknown dashboard path with a 404 page, signed in or not', async () => {
    const signedOut = await page(hub, '/no/such/page', undefined, HTML);
    expect(signedOut.status).toBe(404);
    expect(signedOut.headers.get('content-type')).toMatch(/^text\/html/);
    expect(signedOut.headers.get('content-security-policy')).toContain("default-src 'none'");
    const text = await signedOut.text();
    expect(text).toContain('<h1>Page not found</h1>');
    expect(text).toContain('The hub has no page at /no/such/page.');
    expect(text).not.toContain('Sign out');
    const signedIn = await (await page(hub, '/no/such/page', member, HTML)).text();
    expect(signedIn).toContain('Sign out');
    expect(signedIn).toContain('href="/runs"');
  });

  it('keeps the problem document for clients that ask for JSON or anything, and on machine paths', async () => {
    for (const [path, accept] of [
      ['/no/such/page', 'application/json'],
      ['/no/such/page', '*/*'],
      ['/api/v1/nothing', HTML.accept],
      ['/oauth/nothing', HTML.accept],
      ['/schemas/nothing', HTML.accept],
    ] as const) {
      const answer = await page(hub, path, member, { accept });
      expect(answer.status, `${path} ${accept}`).toBe(404);
      expect(answer.headers.get('content-type'), `${path} ${accept}`).toMatch(/^application\/problem\+json/);
      expect(((await answer.json()) as { code: string }).code).toBe('not_found');
    }
  });

  it('answers a page that fails with a 500 page naming the request id, and JSON clients with the problem', async () => {
    // A real fault: the audit page's query meets a column that is not there.
    await hub.sql`alter table audit_events rename column subject to subject_moved`;
    try {
      const failed = await page(hub, '/audit', member, HTML);
      expect(failed.status).toBe(500);
      const requestId = failed.headers.get('x-request-id') as string;
      const text = await failed.text();
      expect(text).toContain('<h1>Something went wrong</h1>');
      expect(text).toContain(`the request id ${requestId}`);
      expect(text).toContain('Sign out');
      expect(text).not.toContain('subject');
      expect(hub.output()).toContain(requestId);
      if (browser) {
        const context = await browser.newContext();
        const [name, value] = [member.slice(0, member.indexOf('=')), member.slice(member.indexOf('=') + 1)];
        await context.addCookies([{ name, value, url: hub.url }]);
        const tab = await context.newPage();
        await tab.goto(`${hub.url}/audit`);
        await shoot(tab, 'error-500');
        await tab.goto(`${hub.url}/no/such/page`);
        await shoot(tab, 'error-404');
        await context.close();
      }
      const json = await page(hub, '/audit', member, { accept: 'application/json' });
      expect(json.status).toBe(500);
      expect(((await json.json()) as { code: string }).code).toBe('internal_error');
    } finally {
      await hub.sql`alter table audit_events rename column subject_moved to subject`;
    }
  });
});
