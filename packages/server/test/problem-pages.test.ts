import { existsSync, mkdirSync, statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/http/logger.js';
import { requestContext } from '../src/http/middleware.js';
import { problemHandler } from '../src/http/problem-handler.js';
import { problemCatalog, type ProblemCode } from '../src/problems/catalog.js';
import { problemIndex, problemPage } from '../src/problems/routes.js';

const CHROMIUM = process.env.HUB_TEST_CHROMIUM ?? '/usr/bin/chromium';
const chromiumAvailable = existsSync(CHROMIUM) || process.env.CI === 'true';
const screenshots = fileURLToPath(new URL('../../../node_modules/.cache/screenshots/', import.meta.url));
const codes = Object.keys(problemCatalog) as ProblemCode[];

/** The text a reader sees: tags dropped, Preact's entities decoded. */
function textOf(html: string): string {
  return html
    .replace(/<style[\s\S]*?<\/style>/g, '')
    .replace(/<[^>]*>/g, '')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** Catalog prose as the page shows it: `code` spans without their backquotes. */
const shown = (prose: string) => prose.replaceAll('`', '');

describe('the problem pages', () => {
  let url: string;
  let close: () => Promise<void>;

  beforeAll(async () => {
    const log = createLogger('error', () => {});
    const app = express();
    app.use(requestContext(log));
    app.get('/problems', problemIndex);
    app.get('/problems/:code', problemPage);
    app.use(problemHandler({ problemBase: 'http://hub.test', log }));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => new Promise((resolve) => server.close(() => resolve()));
  });
  afterAll(async () => close?.());

  const get = async (path: string, accept?: string) => {
    const response = await fetch(`${url}${path}`, { headers: accept === undefined ? {} : { accept } });
    return { status: response.status, headers: response.headers, text: await response.text() };
  };

  it.each(codes)('answers a page for %s: its title, status, meaning and action', async (code) => {
    const { status, title, meaning, action } = problemCatalog[code];
    const page = await get(`/problems/${code}`, 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('vary')).toMatch(/\bAccept\b/i);
    expect(page.text).toMatch(/^<!doctype html>/);
    const text = textOf(page.text);
    expect(text).toContain(title);
    expect(text).toContain(String(status));
    expect(text).toContain(code);
    expect(text).toContain(shown(meaning));
    expect(text).toContain(shown(action));
  });

  it.each(codes)('answers %s as JSON to a client that prefers JSON', async (code) => {
    const { status, title, meaning, action } = problemCatalog[code];
    const answer = await get(`/problems/${code}`, 'application/json');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json\b/);
    expect(answer.headers.get('vary')).toMatch(/\bAccept\b/i);
    expect(JSON.parse(answer.text)).toEqual({ code, status, title, meaning, action });
  });

  it('answers HTML to a request without Accept, under a policy that allows its inline style only', async () => {
    const page = await get('/problems/not_found');
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const policy = page.headers.get('content-security-policy') ?? '';
    expect(policy).toMatch(/default-src 'none'/);
    expect(policy).toMatch(/style-src 'sha256-[A-Za-z0-9+/=]+'(;|$)/);
    expect(policy).not.toMatch(/script-src|https?:|unsafe-eval/);
    expect(page.text).not.toMatch(/<script|<link|style="/i);
  });

  it.each(['no_such_problem', '%3Cscript%3Ealert(1)%3C%2Fscript%3E', 'toString', '__proto__', 'NOT_FOUND'])(
    'answers an unknown code %s with a 404 problem that does not echo it',
    async (code) => {
      for (const accept of ['text/html', 'application/json']) {
        const answer = await get(`/problems/${code}`, accept);
        expect(answer.status).toBe(404);
        expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(JSON.parse(answer.text)).toMatchObject({
          code: 'not_found',
          status: 404,
          type: 'http://hub.test/problems/not_found',
        });
        expect(answer.text).not.toContain('<script');
        expect(answer.text).not.toContain(decodeURIComponent(code));
      }
    },
  );

  it('lists every code with its status and title, linking to its page', async () => {
    const page = await get('/problems', 'text/html');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const links = [...page.text.matchAll(/<a href="\/problems\/([^"]+)"/g)].map((match) => match[1]);
    expect(links.sort()).toEqual([...codes].sort());
    const text = textOf(page.text);
    for (const code of codes) expect(text).toContain(problemCatalog[code].title);
  });

  it('answers the list as JSON, by status', async () => {
    const answer = await get('/problems', 'application/json');
    expect(answer.headers.get('content-type')).toMatch(/^application\/json\b/);
    const { problems } = JSON.parse(answer.text) as {
      problems: { code: ProblemCode; status: number; title: string }[];
    };
    expect(problems.map((problem) => problem.code).sort()).toEqual([...codes].sort());
    for (const problem of problems)
      expect(problem).toEqual({
        code: problem.code,
        status: problemCatalog[problem.code].status,
        title: problemCatalog[problem.code].title,
      });
    const statuses = problems.map((problem) => problem.status);
    expect(statuses).toEqual([...statuses].sort((a, b) => a - b));
  });

  describe.skipIf(!chromiumAvailable)('in a browser', () => {
    let browser: Browser;

    beforeAll(async () => {
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: [
          '--no-sandbox',
          '--disable-gpu',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
          '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
        ],
      });
    }, 120_000);
    afterAll(async () => browser?.close());

    const pages = [
      { name: 'problems-index', path: '/problems' },
      { name: 'problem-enrollment_token_invalid', path: '/problems/enrollment_token_invalid' },
    ];
    const widths = [375, 1280];

    it.each(pages.flatMap((page) => widths.map((width) => ({ ...page, width }))))(
      'shows $path at $width px from the hub alone, without overflow, and is photographed',
      async ({ name, path, width }) => {
        const page = await browser.newPage({ viewport: { width, height: 900 } });
        const requested: string[] = [];
        const refused: string[] = [];
        page.on('request', (request) => requested.push(request.url()));
        page.on('console', (message) => {
          if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
        });
        const response = await page.goto(`${url}${path}`);
        expect(response?.status()).toBe(200);
        expect(requested.filter((each) => !each.startsWith(`${url}/`))).toEqual([]);
        expect(refused).toEqual([]);
        // A string, evaluated in the page (the tests are typed without the DOM).
        const layout = (await page.evaluate(
          `({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth,
              codeFont: getComputedStyle(document.querySelector('code')).fontFamily })`,
        )) as { scrollWidth: number; innerWidth: number; codeFont: string };
        expect(layout.scrollWidth).toBeLessThanOrEqual(layout.innerWidth);
        // The inline style applied (the policy allowed it): code is set in monospace.
        expect(layout.codeFont).toMatch(/monospace/);
        mkdirSync(screenshots, { recursive: true });
        const file = `${screenshots}${name}-${width}.png`;
        await page.screenshot({ path: file, fullPage: true });
        expect(statSync(file).size).toBeGreaterThan(5_000);
        await page.close();
      },
      60_000,
    );
  });
});
