// Headless Chromium from Debian (apt-get install chromium; .ci/run installs it), as the server's
// reference test drives it. Without it the browser checks are skipped, except under CI=true.
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';

export const CHROMIUM = process.env.HUB_TEST_CHROMIUM ?? '/usr/bin/chromium';
export const browsable = existsSync(CHROMIUM) || process.env.CI === 'true';
/** Where the pages are photographed (ignored by git): look at them. */
export const screenshots = fileURLToPath(new URL('../screenshots/', import.meta.url));

/** A browser that reaches nothing but the hub on loopback. */
export function launchBrowser(): Promise<Browser> {
  mkdirSync(screenshots, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
    ],
  });
}

/** The page at 375 and 1280 px wide: no sideways scrolling at either, and a screenshot of each. */
export async function shoot(page: Page, name: string): Promise<void> {
  for (const width of [375, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    expect(
      await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'),
      `${name} at ${width} px overflows`,
    ).toBe(true);
    await page.screenshot({ path: `${screenshots}${name}-${width}.png`, fullPage: true });
  }
}
