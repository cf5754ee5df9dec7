// What the webhook tests share: the scopes and settings of their hubs, an organization whose key
// manages webhooks, an endpoint on a loopback receiver, an install, and the delivery counters.
import { afterAll, beforeAll, expect } from 'vitest';
import { call, setUp } from './client.js';
import { TestDaemon } from './daemon.js';
import { fixTestsConfiguration } from './documents.js';
import { hubOn, type RunningHub } from './hub.js';
import { WebhookReceiver } from './webhook-receiver.js';

export const SCOPES = [
  'projects:read',
  'configuration:install',
  'daemons:enroll',
  'runs:dispatch',
  'runs:read',
  'webhooks:manage',
];
export const ENV = {
  HUB_WEBHOOK_ALLOW_PRIVATE: 'true',
  HUB_WEBHOOK_RETRY_DELAYS_MS: '200,200,200',
  HUB_WEBHOOK_TIMEOUT_MS: '20000',
  HUB_DAEMON_OFFLINE_AFTER_MS: '1500',
};

export type Hub = Awaited<ReturnType<typeof hubOn>>;

/**
 * For a describe block: one hub on a fresh database of the machine's PostgreSQL with the webhook
 * settings, and receivers made by `receiver`, each of which must have refused nothing by the end.
 */
export function webhookHub(): { hub: () => Hub; receiver: typeof WebhookReceiver.start } {
  let hub: Hub | undefined;
  const receivers: WebhookReceiver[] = [];
  beforeAll(async () => {
    hub = await hubOn('external', ENV);
  }, 120_000);
  afterAll(async () => {
    for (const each of receivers) expect(each.refused).toEqual([]);
    await Promise.all(receivers.map((each) => each.close()));
    await hub?.close();
  });
  return {
    hub: () => hub as Hub,
    receiver: async (...args) => {
      const made = await WebhookReceiver.start(...args);
      receivers.push(made);
      return made;
    },
  };
}

export async function scrape(hub: Hub): Promise<string> {
  const answer = await call(hub, 'GET', '/metrics');
  expect(answer.status).toBe(200);
  return answer.text;
}

/** A counter's value by its `result` label in the text format (0 when absent). */
export function metric(text: string, name: string, result: string): number {
  const line = text.split('\n').find((each) => each.startsWith(`${name}{result="${result}"} `));
  return line === undefined ? 0 : Number(line.split(' ')[1]);
}
export type Org = Awaited<ReturnType<typeof setUp>>;

/** An organization whose key manages webhooks, with the daemon its configuration names enrolled. */
export async function organization(hub: RunningHub): Promise<Org & { daemon: TestDaemon }> {
  const org = await setUp(hub, { scopes: SCOPES });
  const daemon = await TestDaemon.enroll(hub, org.key, 'dev-box');
  return { ...org, daemon };
}

export async function endpoint(hub: RunningHub, org: Org, receiver: WebhookReceiver, events: string[]) {
  const answer = await call(hub, 'POST', '/api/v1/webhook-endpoints', {
    token: org.key,
    body: { url: receiver.url, events, description: 'test receiver' },
  });
  expect(answer.status, answer.text).toBe(201);
  receiver.secret(answer.body.secret as string);
  return answer.body as { id: string; secret: string };
}

export async function install(hub: RunningHub, org: Org) {
  const answer = await call(hub, 'POST', '/api/v1/configurations/install', {
    token: org.key,
    body: { projectSlug: org.project, yaml: fixTestsConfiguration },
  });
  expect(answer.status, answer.text).toBe(201);
  return answer.body as { versionId: string; version: number };
}
