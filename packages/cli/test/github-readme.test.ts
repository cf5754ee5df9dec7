// The README's "Connect GitHub", walked against the GitHub stand-in (github.com's layout): its
// operator API commands run in bash as written, its configuration installed, and its first
// mention written on an issue: the run goes to the reference daemon and its result lands in the
// issue. The README is read here, so that it and this test cannot drift.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueCommentCreated, issuesLabeled } from '../../server/test/support/github/index.js';
import { eventually } from '../../server/test/support/poll.js';
import { INSTALLATION, REPO, startGitHubWorld, type GitHubWorld } from './support/github-world.js';

const README = readFileSync(fileURLToPath(new URL('../../../README.md', import.meta.url)), 'utf8');

/** The fenced blocks of one language in the README's section `heading` (up to the next heading of its level). */
function blocks(heading: string, language: string): string[] {
  const start = README.indexOf(`${heading}\n`);
  if (start < 0) throw new Error(`no section ${heading} in the README`);
  const rest = README.slice(start + heading.length + 1);
  const next = /^#{1,2} /m.exec(rest);
  const section = next === null ? rest : rest.slice(0, next.index);
  return [...section.matchAll(new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map(
    (match) => match[1] as string,
  );
}

const SECTION = '## Connect GitHub';

/** Runs `script` in bash (-euo pipefail) with only `env`. */
function bash(
  script: string,
  env: Record<string, string>,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn('bash', ['-euo', 'pipefail', '-c', script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
}

describe("the README's Connect GitHub, step by step", () => {
  let world: GitHubWorld;
  const [configuration] = blocks(SECTION, 'yaml');
  const [commands] = blocks(SECTION, 'sh');
  const [comment] = blocks(SECTION, 'text');

  beforeAll(async () => {
    expect(configuration).toBeDefined();
    world = await startGitHubWorld({
      enterprise: false,
      link: false,
      // The README's configuration, with the test's login, working directory and agent (the daemon
      // here runs a small script as `codex`).
      configuration: (cwd) =>
        (configuration as string)
          .replace('your-github-login', 'octocat')
          .replace('~/src/app', cwd)
          .replace('provider: claude', 'provider: codex'),
    });
  }, 120_000);
  afterAll(async () => {
    await world?.close();
  });

  it('step 3: the operator API commands link the installation and name the repository', async () => {
    const hub = world.hubs[0]!;
    // Not spawnSync: the stand-in answers the hub from this process while the commands run.
    const ran = await bash(commands as string, {
      PATH: process.env.PATH ?? '',
      HUB: hub.url,
      HUB_ADMIN_TOKEN: hub.adminToken,
      ORG: world.ctx.org,
      PROJECT: world.ctx.project,
      INSTALLATION_ID: String(INSTALLATION),
      REPOSITORY: REPO,
    });
    expect(ran.status, `${ran.stdout}\n${ran.stderr}`).toBe(0);
    expect(ran.stdout).toContain(`"installationId":${INSTALLATION},"organization":"${world.ctx.org}"`);
    expect(ran.stdout).toContain(`"repository":"${REPO}"`);
    // The hub asked GitHub, with the app's JWT, which account the installation is on.
    expect(ran.stdout).toContain('"accountLogin":"octo-org"');
  });

  it('step 5: the mention becomes a run on the reference daemon, and the result lands in the issue', async () => {
    const text = (comment as string).trim().replace('<slug>', world.github.slug);
    const commentId = world.github.addComment(REPO, 1, { body: text, login: 'octocat' });
    const delivery = await world.send(
      issueCommentCreated({ repository: REPO, installationId: INSTALLATION, number: 1, commentId, body: text }),
    );
    const run = await world.runOf(delivery, (found) => found.status === 'succeeded');
    expect(run).toMatchObject({ trigger: 'fix-tests', actor: 'octocat', inputs: { branch: 'main' } });
    const [row] = await world.sql<{ prompt: string }[]>`
      select plan -> 0 ->> 'prompt' as prompt from trigger_runs where id = ${run.triggerRunId}`;
    expect(row?.prompt).toMatch(/^Fix \S+\/issues\/1 on main: The parser test fails since yesterday\.$/);
    const final = await world.finalComment(1, 'fix-tests');
    expect(final?.edits[0]).toContain('⏳ Running `fix-tests` on the daemon `dev-box`.');
    expect(final?.body).toMatch(/^✅ `fix-tests` succeeded after \d+ s on the daemon `dev-box`\./);
    expect(final?.body).toContain(`/runs/${run.triggerRunId})`);
    await eventually(
      async () =>
        world.github.reactions().filter((reaction) => reaction.id === commentId && reaction.content === 'eyes'),
      (found) => found.length === 1,
      'the eyes reaction',
    );
    expect(world.github.rejected).toEqual([]);
  });

  it("the README's label starts the same trigger, with the issue's title and body as the prompt", async () => {
    const delivery = await world.send(
      issuesLabeled({
        repository: REPO,
        installationId: INSTALLATION,
        number: 3,
        title: 'Sort the backlog',
        body: 'Old issues first.',
        label: 'fix-me',
      }),
    );
    const run = await world.runOf(delivery, (found) => found.status === 'succeeded');
    expect(run).toMatchObject({ trigger: 'fix-tests', inputs: { branch: 'main' }, event: { label: 'fix-me' } });
    expect((await world.finalComment(3, 'fix-tests'))?.body).toContain('✅ `fix-tests` succeeded');
  });
});
