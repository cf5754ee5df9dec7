// A GitHub world for end-to-end tests (DECISIONS.md, GitHub): the GitHub stand-in (GitHub
// Enterprise Server's layout, every request checked against GitHub's OpenAPI description), two
// hub instances on one fresh database with the app configured, an organization whose project
// names the repository and whose installation is linked, the reference daemon (`hub daemon run`)
// as dev-box, an offline daemon sleepy-box, and a configuration of GitHub triggers.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { call, setUp } from '../../../server/test/support/client.js';
import { TestDaemon } from '../../../server/test/support/daemon.js';
import {
  deliver,
  signedDelivery,
  startGitHubStandIn,
  type GitHubStandIn,
  type WebhookEvent,
} from '../../../server/test/support/github/index.js';
import { connect, freshDatabase, startHub, type RunningHub } from '../../../server/test/support/hub.js';
import { eventually } from '../../../server/test/support/poll.js';
import { hub as runHub, start } from './cli.js';

/** Prints HUB_INPUT_LINES numbered lines, then fails (exit 3) if asked, then sleeps HUB_INPUT_SLEEP_MS. */
const AGENT = `const lines = Number(process.env.HUB_INPUT_LINES ?? 3);
for (let i = 1; i <= lines; i++) process.stdout.write('line ' + i + '\\n');
if (process.env.HUB_INPUT_FAIL === 'yes') { process.stderr.write('boom\\n'); process.exit(3); }
await new Promise((resolve) => setTimeout(resolve, Number(process.env.HUB_INPUT_SLEEP_MS ?? 0)));
`;
/** Says nothing for a minute: its step's idle timeout (1 s) ends it. */
const SILENT = `await new Promise((resolve) => setTimeout(resolve, 60_000));\n`;

export const REPO = 'octo-org/app';
export const INSTALLATION = 77;
export const HEAD = 'a'.repeat(40);

const configuration = (cwd: string) => `
environments:
  - { name: laptop, kind: daemon, daemon: dev-box, cwd: ${JSON.stringify(cwd)} }
  - { name: away, kind: daemon, daemon: sleepy-box, cwd: /tmp }
triggers:
  - name: fix-tests
    max_runtime: 1h
    on:
      github.mention:
        inputs:
          lines: { required: false, default: "3" }
          fail: { required: false, default: "no", enum: ["yes", "no"] }
          sleep_ms: { required: false, default: "0" }
    filters: { from_users: [OctoCat] }
    steps:
      - id: fix
        environment: laptop
        agent: { provider: codex }
        prompt: [{ text: "Fix in {{ event.repository }}#{{ event.number }} ({{ event.kind }}, branch {{ event.branch }}): {{ prompt }}" }]
  - name: triage
    max_runtime: 1h
    on: { github.label: { name: hub-triage } }
    filters: { from_users: [octocat] }
    steps:
      - { id: look, environment: laptop, agent: { provider: codex }, prompt: [{ text: "Triage {{ event.url }}: {{ prompt }}" }] }
  - name: slow
    max_runtime: 1h
    on: { github.label: { name: hub-slow } }
    filters: { from_users: [octocat] }
    steps:
      - { id: wait, environment: laptop, idle_timeout: 1s, agent: { provider: claude }, prompt: [{ text: "Wait." }] }
  - name: strict
    max_runtime: 1h
    on: { github.mention: {} }
    filters: { from_users: [someone-else] }
    steps:
      - { id: go, environment: laptop, agent: { provider: codex }, prompt: [{ text: "Go." }] }
  - name: far
    max_runtime: 1h
    on: { github.mention: {} }
    filters: { from_users: [octocat] }
    steps:
      - { id: go, environment: away, agent: { provider: codex }, prompt: [{ text: "Go." }] }
`;

export interface GitHubRun {
  triggerRunId: string;
  trigger: string;
  actor: string;
  source: string;
  status: string;
  inputs: Record<string, string>;
  event: Record<string, string>;
  message?: string;
}

/** The world, started; `close()` stops all of it. */
export interface WorldOptions {
  /** The app's slug: people mention `@<slug>`. */
  slug?: string;
  /** Link the installation and name the repository through the operator API (else the test does). */
  link?: boolean;
  /** The configuration installed, given the daemon's working directory. */
  configuration?: (cwd: string) => string;
  /** GitHub Enterprise Server's layout (the API under /api/v3), else github.com's. */
  enterprise?: boolean;
}

export async function startGitHubWorld(options: WorldOptions = {}) {
  const slug = options.slug ?? 'hub-bot';
  const github: GitHubStandIn = await startGitHubStandIn({
    enterprise: options.enterprise ?? true,
    appId: '4242',
    slug,
  });
  github.addInstallation({
    id: INSTALLATION,
    account: { login: 'octo-org', type: 'Organization' },
    repositories: [REPO],
  });
  github.addIssue(REPO, { number: 1, title: 'Tests fail on main', body: 'The parser test is flaky.' });
  github.addPullRequest(REPO, { number: 2, title: 'Fix the parser', headSha: HEAD, headRef: 'fix-parser' });
  github.addIssue(REPO, { number: 3, title: 'Sort the backlog', body: 'Old issues first.' });
  github.addPullRequest(REPO, { number: 4, title: 'Slow work', headSha: 'b'.repeat(40), headRef: 'slow' });
  const dir = mkdtempSync(join(tmpdir(), 'hub-github-e2e-'));
  mkdirSync(join(dir, 'work'));
  writeFileSync(join(dir, 'app.pem'), github.privateKeyPem);
  writeFileSync(join(dir, 'agent.mjs'), AGENT);
  writeFileSync(join(dir, 'silent.mjs'), SILENT);
  const database = await freshDatabase();
  const sql = connect(database.url);
  const env = {
    HUB_GITHUB_APP_ID: '4242',
    HUB_GITHUB_APP_SLUG: slug,
    HUB_GITHUB_PRIVATE_KEY_FILE: join(dir, 'app.pem'),
    HUB_GITHUB_WEBHOOK_SECRET: github.webhookSecret,
    HUB_GITHUB_API_URL: github.apiUrl,
  };
  const hubs = await Promise.all([
    startHub({ databaseUrl: database.url, env }),
    startHub({ databaseUrl: database.url, env }),
  ]);
  const first = hubs[0] as RunningHub;
  const ctx = await setUp(first, {
    scopes: ['projects:read', 'configuration:install', 'daemons:enroll', 'runs:dispatch', 'runs:read', 'audit:read'],
  });
  if (options.link !== false) {
    // Linked as the README's "Connect GitHub" links them, with the operator API.
    const admin = { token: first.adminToken };
    const linked = await call(first, 'POST', `/api/admin/v1/organizations/${ctx.org}/github-installations`, {
      ...admin,
      body: { installationId: INSTALLATION },
    });
    expect(linked.status, linked.text).toBe(201);
    const named = await call(first, 'PATCH', `/api/admin/v1/organizations/${ctx.org}/projects/${ctx.project}`, {
      ...admin,
      body: { repository: REPO },
    });
    expect(named.status, named.text).toBe(200);
  }
  const config = join(dir, 'daemon.yml');
  writeFileSync(
    config,
    `providers:\n  codex:\n    command: ${JSON.stringify([process.execPath, join(dir, 'agent.mjs')])}\n  claude:\n    command: ${JSON.stringify([process.execPath, join(dir, 'silent.mjs')])}\n`,
  );
  const configDir = join(dir, 'config');
  const token = await call(first, 'POST', '/api/v1/daemons/enrollment-tokens', { token: ctx.key });
  const enrolled = await runHub(['daemon', 'enroll', first.url, '--name', 'dev-box', '--config', config], {
    input: `${token.body.token}\n`,
    env: { HUB_CONFIG_DIR: configDir },
  });
  expect(enrolled.code, enrolled.stderr).toBe(0);
  // Enrolled, and never seen since: offline.
  await TestDaemon.enroll(first, ctx.key, 'sleepy-box');
  await sql`update daemons set last_seen_at = now() - interval '1 day' where name = 'sleepy-box'`;
  const installed = await call(first, 'POST', '/api/v1/configurations/install', {
    token: ctx.key,
    body: { projectSlug: ctx.project, yaml: (options.configuration ?? configuration)(join(dir, 'work')) },
  });
  expect(installed.status, installed.text).toBe(201);
  const daemon = start(['daemon', 'run', first.url, '--config', config], { env: { HUB_CONFIG_DIR: configDir } });
  await daemon.waitFor(/Connected; waiting for assignments\./);

  const send = async (webhook: WebhookEvent, options: { hub?: RunningHub; delivery?: string } = {}) => {
    const delivery = signedDelivery(github.webhookSecret, webhook.event, webhook.payload, options.delivery);
    const answer = await deliver(`${(options.hub ?? first).url}/api/v1/github/webhook`, delivery);
    expect(answer.status, await answer.clone().text()).toBe(202);
    return delivery.headers['x-github-delivery'] as string;
  };
  const runsOf = async (delivery: string): Promise<GitHubRun[]> => {
    const answer = await call(first, 'GET', '/api/v1/runs?source=github&limit=200', { token: ctx.key });
    expect(answer.status, answer.text).toBe(200);
    return (answer.body.runs as GitHubRun[]).filter((run) => run.event.deliveryId === delivery);
  };
  const runOf = async (delivery: string, done: (run: GitHubRun) => boolean = () => true) =>
    (
      await eventually(
        () => runsOf(delivery),
        (found) => found.length === 1 && done(found[0] as GitHubRun),
        `a run of delivery ${delivery}`,
      )
    )[0] as GitHubRun;
  /** What came of a delivery, once a worker has acted on it. */
  const processed = async (delivery: string) =>
    (await eventually(
      async () =>
        (
          await sql<{ outcome: string | null }[]>`
            select outcome from github_deliveries where delivery_id = ${delivery} and state = 'done'`
        )[0]?.outcome,
      (outcome) => outcome !== undefined,
      `delivery ${delivery} processed`,
    )) as string;
  const ours = (number: number) => github.comments(REPO, number).filter((comment) => comment.user === `${slug}[bot]`);
  const finalComment = async (number: number, trigger: string) =>
    eventually(
      async () => ours(number).find((comment) => comment.body.includes(`\`${trigger}\``) && comment.edits.length > 0),
      (comment) => comment !== undefined,
      `the final comment of ${trigger} on #${number}`,
    );

  return {
    github,
    env,
    hubs,
    sql,
    ctx,
    send,
    runsOf,
    runOf,
    processed,
    ours,
    finalComment,
    async close() {
      if (daemon.child.exitCode === null) {
        daemon.child.kill('SIGTERM');
        await daemon.exited;
      }
      await Promise.all(hubs.map((hub) => hub.stop()));
      await sql.end();
      await database.drop();
      await github.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type GitHubWorld = Awaited<ReturnType<typeof startGitHubWorld>>;
