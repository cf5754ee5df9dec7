// The README's Quickstart, walked as a newcomer walks it: its commands are read from the README
// itself (so that the README and this test cannot drift), run in bash in a home of their own, and
// its browser steps done in headless Chromium, from the setup link to the run's output on its page.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browsable, launchBrowser, shoot } from './support/browser.js';
import { PASSWORD } from './support/hub-pages.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const HUB_CLI = join(ROOT, 'packages/cli/dist/bundle/hub.js');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
/** The address the README names; the test's hub listens on an ephemeral port instead. */
const README_ORIGIN = 'http://127.0.0.1:8080';
const MINUTE = 60_000;

/** The `sh` blocks of a README section (up to the next heading of its level or above), unindented. */
export function shellBlocks(markdown: string, heading: string): string[] {
  const start = markdown.indexOf(`${heading}\n`);
  if (start < 0) throw new Error(`no section ${heading} in the README`);
  const level = /^#+/.exec(heading)?.[0].length ?? 2;
  const rest = markdown.slice(start + heading.length + 1);
  const next = new RegExp(`^#{1,${level}} `, 'm').exec(rest);
  const section = next === null ? rest : rest.slice(0, next.index);
  return [...section.matchAll(/^( *)```sh\n([\s\S]*?)^\1```$/gm)].map(([, indent, body]) =>
    (body as string)
      .split('\n')
      .map((line) => line.slice((indent as string).length))
      .join('\n'),
  );
}

interface Shell {
  child: ChildProcess;
  output(): string;
  waitFor(pattern: RegExp, ms?: number): Promise<RegExpExecArray>;
  exited: Promise<number | null>;
}

/** One block in bash (-e), in its own process group (a block may leave a daemon running). */
function bash(script: string, env: Record<string, string>): Shell {
  const child = spawn('bash', ['-euo', 'pipefail', '-c', script], {
    cwd: ROOT,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  // 'exit', not 'close': a daemon left running in the background keeps the pipes open.
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    output: () => output,
    exited,
    async waitFor(pattern, ms = MINUTE) {
      const deadline = Date.now() + ms;
      for (;;) {
        const match = pattern.exec(output);
        if (match !== null) return match;
        if (Date.now() > deadline) throw new Error(`no ${pattern} within ${ms} ms:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
  };
}

describe.skipIf(!browsable)("the README's Quickstart, walked", () => {
  const home = mkdtempSync(join(tmpdir(), 'hub-quickstart-home-'));
  const dataDir = mkdtempSync(join(tmpdir(), 'hub-quickstart-data-'));
  const groups: number[] = [];
  let hub: Shell;
  let origin: string;
  let browser: Browser;
  let page: Page;
  let env: Record<string, string>;

  beforeAll(async () => {
    // The embedded PostgreSQL runs as the postgres account when this runs as root.
    chmodSync(dataDir, 0o755);
    // The README's start command, without its install (the suite's own install is that one), on a port of its own.
    const start = shellBlocks(README, '## Start the hub')[0] ?? '';
    expect(start).toContain('npx -y pnpm@10.34.9 install --frozen-lockfile && npx -y pnpm@10.34.9 start');
    hub = bash('exec npx -y pnpm@10.34.9 start', {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? home,
      PORT: '0',
      HUB_DATA_DIR: dataDir,
    });
    groups.push(hub.child.pid as number);
    origin = (await hub.waitFor(/Hub listening on (\S+)\n/, 3 * MINUTE))[1] as string;
    // `hub` as the README's install line puts it on PATH: here, the bundle that line packs.
    const bin = join(home, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'hub'), `#!/bin/sh\nexec "${process.execPath}" "${HUB_CLI}" "$@"\n`, { mode: 0o755 });
    env = { PATH: `${bin}:${process.env.PATH ?? ''}`, HOME: home };
    browser = await launchBrowser();
    page = await browser.newPage();
  }, 5 * MINUTE);

  afterAll(async () => {
    await browser?.close();
    for (const group of groups.reverse()) {
      try {
        process.kill(-group, 'SIGTERM');
      } catch {
        // Already gone.
      }
    }
    await hub?.exited;
    rmSync(home, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** A README block as the reader runs it, at the test hub's address. */
  function run(block: string): Shell {
    const script = block
      .replaceAll(README_ORIGIN, origin)
      // The install line builds and installs `hub` globally: the test has put it on PATH already.
      .replace('node packages/cli/scripts/pack.js --install', 'command -v hub >/dev/null');
    const shell = bash(script, env);
    groups.push(shell.child.pid as number);
    return shell;
  }

  it(
    'takes a newcomer from the setup link to the output of a run on its page',
    async () => {
      const blocks = shellBlocks(README, '### Quickstart: from the two commands to a run you watch');
      expect(blocks).toHaveLength(3);
      const [login, connect, deploy] = blocks as [string, string, string];

      // 1. The setup link.
      const setup = /Set up the hub \(one time; also in [^)]*\): (\S+)/.exec(hub.output())?.[1] as string;
      await page.goto(setup);
      await page.fill('#name', 'Ada Lovelace');
      await page.fill('#email', 'ada@example.com');
      await page.fill('#password', PASSWORD);
      await page.fill('#slug', 'acme');
      await page.fill('#organization-name', 'Acme');
      await page.click('button[type=submit]');
      // 2. The project.
      await page.goto(`${origin}/projects`);
      await page.fill('input[name=slug]', 'hello');
      await page.fill('input[name=name]', 'Hello');
      await page.click('text=Create project');
      expect(page.url()).toBe(`${origin}/projects/hello`);

      // 3. `hub login`, approved on the page it names.
      const loggingIn = run(login);
      const device = (await loggingIn.waitFor(/Open (http\S+\/device\S*)/))[1] as string;
      await page.goto(device);
      await page.click('button:has-text("Continue")').catch(() => undefined);
      await page.click('button:has-text("Approve")');
      expect(await loggingIn.exited, loggingIn.output()).toBe(0);

      // 4. The repository and the daemon (left running, as the README's `&` leaves it).
      const connecting = run(connect);
      expect(await connecting.exited, connecting.output()).toBe(0);
      await page.goto(`${origin}/daemons`);
      await expect
        .poll(async () => (await page.reload(), await page.textContent('main')), { timeout: 30_000 })
        .toMatch(/my-laptop[\s\S]*online/i);

      // 5. Deploy and run, following the output.
      const deploying = run(deploy);
      expect(await deploying.exited, deploying.output()).toBe(0);
      expect(deploying.output()).toContain('Say hello in a formal tone. Welcome the team.');

      // 6. The run's page shows its output.
      const runId = /\/runs\/([0-9a-f-]{36})/.exec(deploying.output())?.[1];
      await page.goto(runId === undefined ? `${origin}/runs` : `${origin}/runs/${runId}`);
      if (runId === undefined) await page.click('main table a[href^="/runs/"]');
      await expect.poll(() => page.textContent('main')).toContain('Say hello in a formal tone. Welcome the team.');
      await shoot(page, 'quickstart-run');
      // What the CLI login did reads as the person did it, in the audit log and the project's history.
      await page.goto(`${origin}/audit`);
      expect(await page.textContent('main')).toMatch(/Run dispatched\s*Ada Lovelace \(hub login on [^)]+\)/);
      await page.goto(`${origin}/projects/hello`);
      expect(await page.textContent('main')).toMatch(/Installed by\s*Ada Lovelace \(hub login on [^)]+\)/);
      await shoot(page, 'quickstart-project');
    },
    5 * MINUTE,
  );
});
