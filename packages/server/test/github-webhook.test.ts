// The webhook's front door (DECISIONS.md, GitHub): the signature before anything else, the
// delivery in PostgreSQL before the 202, one row per X-GitHub-Delivery across two instances, and
// what the hub answers without acting (events it does not read, a hub without GitHub).
import { createHmac, generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres, { type Sql } from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryRepository } from '../src/github/deliveries/sql.js';
import { call, expectProblem } from './support/client.js';
import { freshDatabase, startHub, type RunningHub } from './support/hub.js';

const SECRET = 'webhook-secret-for-tests';
const sign = (body: string, secret = SECRET) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
const comment = (body: string) => ({
  action: 'created',
  issue: { number: 1, title: 'x', body: '', html_url: 'https://github.com/o/r/issues/1', user: { login: 'a' } },
  comment: { id: 5, body, user: { login: 'octocat', type: 'User' } },
  repository: { full_name: 'octo-org/app' },
  installation: { id: 99 },
  sender: { login: 'octocat' },
});

describe('the GitHub webhook (external PostgreSQL, two instances)', () => {
  let database: { url: string; drop(): Promise<void> };
  let sql: Sql;
  let hubs: RunningHub[] = [];
  let off: RunningHub;
  const dir = mkdtempSync(join(tmpdir(), 'hub-github-'));

  const deliver = (
    hub: RunningHub,
    payload: unknown,
    options: { event?: string; delivery?: string; signature?: string | null; raw?: string } = {},
  ) => {
    const raw = options.raw ?? JSON.stringify(payload);
    const signature = options.signature === undefined ? sign(raw) : options.signature;
    return call(hub, 'POST', '/api/v1/github/webhook', {
      raw,
      headers: {
        'x-github-event': options.event ?? 'issue_comment',
        'x-github-delivery': options.delivery ?? randomUUID(),
        ...(signature === null ? {} : { 'x-hub-signature-256': signature }),
      },
    });
  };
  const stored = async (delivery: string) =>
    (await sql`select count(*)::int as n from github_deliveries where delivery_id = ${delivery}`)[0]?.n as number;

  beforeAll(async () => {
    database = await freshDatabase();
    sql = postgres(database.url, { max: 2, onnotice: () => {} });
    const key = join(dir, 'app.pem');
    writeFileSync(
      key,
      generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }),
    );
    const env = {
      HUB_GITHUB_APP_ID: '4242',
      HUB_GITHUB_APP_SLUG: 'hub-bot',
      HUB_GITHUB_PRIVATE_KEY_FILE: key,
      HUB_GITHUB_WEBHOOK_SECRET: SECRET,
      // Nothing listens there: these tests never start a run, so the hub never calls it.
      HUB_GITHUB_API_URL: 'http://127.0.0.1:9/api/v3',
    };
    [off, ...hubs] = await Promise.all([
      startHub({ databaseUrl: database.url }),
      startHub({ databaseUrl: database.url, env }),
      startHub({ databaseUrl: database.url, env }),
    ]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([off, ...hubs].map((hub) => hub?.stop()));
    await sql?.end();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a missing, malformed or wrong signature with 401, and stores nothing', async () => {
    const hub = hubs[0] as RunningHub;
    for (const signature of [null, 'sha1=abc', sign('another body'), sign(JSON.stringify(comment('x')), 'wrong')]) {
      const delivery = randomUUID();
      const answer = await deliver(hub, comment('@hub-bot go'), { signature, delivery });
      expectProblem(answer, 401, 'unauthorized');
      expect(await stored(delivery)).toBe(0);
    }
  });

  it('checks the signature before the body: an unsigned body is never parsed', async () => {
    const answer = await deliver(hubs[0] as RunningHub, undefined, { raw: '{not json', signature: null });
    expectProblem(answer, 401, 'unauthorized');
    const signed = await deliver(hubs[0] as RunningHub, undefined, { raw: '{not json' });
    expectProblem(signed, 400, 'invalid_request');
  });

  it('stores a signed delivery before answering 202, once per X-GitHub-Delivery', async () => {
    const delivery = randomUUID();
    const first = await deliver(hubs[0] as RunningHub, comment('@hub-bot go'), { delivery });
    expect(first.status, first.text).toBe(202);
    expect(first.body).toEqual({ delivery, status: 'queued' });
    // Stored before the answer: no waiting.
    expect(await stored(delivery)).toBe(1);
    const again = await deliver(hubs[1] as RunningHub, comment('@hub-bot go'), { delivery });
    expect(again.body).toEqual({ delivery, status: 'duplicate' });
    expect(await stored(delivery)).toBe(1);
  });

  it('the same delivery at two instances at once is one row', async () => {
    const delivery = randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, index) =>
        deliver(hubs[index % 2] as RunningHub, comment('@hub-bot go'), { delivery }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual([202, 202, 202, 202, 202, 202]);
    expect(answers.filter((answer) => answer.body.status === 'queued')).toHaveLength(1);
    expect(await stored(delivery)).toBe(1);
  });

  it('answers events and actions it does not read 202 ignored, without storing them', async () => {
    for (const [event, payload] of [
      ['ping', { zen: 'Keep it logically awesome.', hook_id: 1 }],
      ['issue_comment', { ...comment('@hub-bot go'), action: 'edited' }],
      ['push', { ref: 'refs/heads/main' }],
    ] as const) {
      const delivery = randomUUID();
      const answer = await deliver(hubs[0] as RunningHub, payload, { event, delivery });
      expect(answer.status, answer.text).toBe(202);
      expect(answer.body).toEqual({ delivery, status: 'ignored' });
      expect(await stored(delivery)).toBe(0);
    }
  });

  it('an event of a repository that no project names is taken (202) and done as ignored', async () => {
    const delivery = randomUUID();
    expect((await deliver(hubs[0] as RunningHub, comment('@hub-bot go'), { delivery })).status).toBe(202);
    for (let tries = 0; ; tries++) {
      const [row] = await sql<{ state: string; outcome: string }[]>`
        select state, outcome from github_deliveries where delivery_id = ${delivery}`;
      if (row?.state === 'done') {
        expect(row.outcome).toBe('ignored: no project names the repository');
        break;
      }
      if (tries > 200) throw new Error(`the delivery was not processed: ${JSON.stringify(row)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });

  it('a delivery whose receiver died after answering is taken up by another instance once its lease runs out', async () => {
    // Stored as the receiver stores it, and never acted on: its lease (10 s) has run out.
    const delivery = randomUUID();
    await sql`insert into github_deliveries (delivery_id, event, payload, next_attempt_at)
      values (${delivery}, 'issue_comment', ${sql.json(comment('@hub-bot go'))}, now() - interval '1 second')`;
    for (let tries = 0; ; tries++) {
      const [row] = await sql<{ state: string; outcome: string }[]>`
        select state, outcome from github_deliveries where delivery_id = ${delivery}`;
      if (row?.state === 'done') {
        expect(row.outcome).toBe('ignored: no project names the repository');
        break;
      }
      // The workers look at least every 10 s without being told.
      if (tries > 300) throw new Error(`the delivery was not taken up: ${JSON.stringify(row)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }, 30_000);

  it('refuses a body over 2 MiB before reading it, and headers the document requires', async () => {
    const big = await fetch(`${(hubs[0] as RunningHub).url}/api/v1/github/webhook`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'content-length': String(16 * 1024 * 1024),
        'x-github-event': 'issue_comment',
        'x-github-delivery': randomUUID(),
        'x-hub-signature-256': sign('x'),
      },
      body: 'x'.repeat(16 * 1024 * 1024),
    }).catch((error: unknown) => error);
    if (big instanceof Response) expect(big.status).toBe(413);
    const noEvent = await call(hubs[0] as RunningHub, 'POST', '/api/v1/github/webhook', {
      raw: '{}',
      headers: { 'x-github-delivery': randomUUID(), 'x-hub-signature-256': sign('{}') },
    });
    expectProblem(noEvent, 400, 'invalid_request');
  });

  it('forgets deliveries done more than 7 days ago, and the messages sent for them, never pending ones', async () => {
    const [old, recent, pending] = [randomUUID(), randomUUID(), randomUUID()];
    await sql`insert into github_deliveries (delivery_id, event, payload, state, received_at) values
      (${old}, 'issue_comment', '{}', 'done', now() - interval '8 days'),
      (${recent}, 'issue_comment', '{}', 'done', now() - interval '6 days'),
      (${pending}, 'issue_comment', '{}', 'pending', now() - interval '8 days')`;
    await sql`update github_deliveries set next_attempt_at = 'infinity' where delivery_id = ${pending}`;
    await sql`insert into github_messages (delivery_id, kind, installation_id, repository, body, sent_at)
      values (${old}, 'reply', 1, 'o/r', '{"number": 1, "body": "x"}', now() - interval '8 days')`;
    expect(await new DeliveryRepository(sql).prune(7, 1_000)).toBeGreaterThanOrEqual(1);
    expect([await stored(old), await stored(recent), await stored(pending)]).toEqual([0, 1, 1]);
    const [messages] = await sql<
      { n: number }[]
    >`select count(*)::int as n from github_messages where delivery_id = ${old}`;
    expect(messages?.n).toBe(0);
  });

  it('a hub without a GitHub App answers 404, naming the variables', async () => {
    const answer = await deliver(off, comment('@hub-bot go'));
    expectProblem(answer, 404, 'not_found');
    expect(answer.body.detail).toContain('HUB_GITHUB_APP_ID');
  });
});
