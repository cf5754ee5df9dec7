import type { CompiledConfiguration, CompiledTrigger } from '@hub/compiler';
import { closest } from '@hub/schemas';
import type { Sql } from 'postgres';
import { startUnattendedRun } from '../../runs/index.js';
import type { GitHubConfig } from '../config.js';
import { readEvent, type GitHubEvent, type Item, type Subject } from '../events.js';
import { findMention } from '../mention.js';
import { refusedActorReply, unknownTriggerReply } from '../report/bodies.js';
import { MessageRepository, type MessageBody } from '../report/sql.js';
import { linkedProject, revisionModel } from './projects.js';
import { DeliveryRepository, type StoredDelivery } from './sql.js';

export interface ProcessOptions {
  sql: Sql;
  config: GitHubConfig;
  timing: { offlineAfterMs: number };
  /** A pull request's head (commit and branch), when the payload lacks it (an issue comment on a pull request). */
  pullHead: (installationId: number, repository: string, number: number) => Promise<{ sha: string; ref: string }>;
  wake: (daemonId: string) => void;
  /** Kept between deliveries: revisions' models by id, and A's trigger ids by project and name (neither ever changes). */
  kept?: { models: Map<string, CompiledConfiguration>; triggerIds: Map<string, string> };
}

/** Entries kept of each, at most: the oldest is forgotten first. */
const KEPT = 500;
const keep = <T>(kept: Map<string, T>, key: string, value: T) => {
  if (kept.size >= KEPT) kept.delete(kept.keys().next().value as string);
  kept.set(key, value);
};

type Outcome = { outcome: string; woken: string[] };

/**
 * Acts on one stored delivery (DECISIONS.md, GitHub): the event read, its project found, the
 * trigger chosen by the mention's name or the label, the actor checked against the trigger's
 * `from_users`, and the run started through the same dispatch as a manual run, or a reply that
 * says why not. The delivery is marked done in the transaction that starts its runs and queues its
 * messages, so that a crash before the commit leaves it for the next lease, and the delivery key
 * `github:<X-GitHub-Delivery>` keeps a second attempt from starting a second run.
 */
export async function processDelivery(options: ProcessOptions, delivery: StoredDelivery): Promise<string> {
  const event = readEvent(delivery.event, delivery.payload, options.config.slug);
  if (event.kind === 'ignored') return finish(options, delivery, `ignored: ${event.reason}`);
  const project = await linkedProject(options.sql, event.item.repository, event.item.installationId);
  if ('ignored' in project) return finish(options, delivery, `ignored: ${project.ignored}`);
  const model = await modelOf(options, project.revisionId);
  const chosen = choose(event, model, options.config.slug);
  if (chosen.kind === 'none') return finish(options, delivery, `ignored: ${chosen.reason}`);
  const item = await withHead(options, event.item, chosen.kind === 'run');
  const { outcome, woken } = await options.sql.begin(async (tx): Promise<Outcome> => {
    const messages = new MessageRepository(tx);
    const base = { deliveryId: delivery.deliveryId, installationId: item.installationId, repository: item.repository };
    if (chosen.kind === 'reply') {
      await messages.queue({ ...base, kind: 'reply', body: { number: item.number, body: chosen.body } });
      await new DeliveryRepository(tx).done(delivery.deliveryId, chosen.outcome);
      return { outcome: chosen.outcome, woken: [] };
    }
    const started: string[] = [];
    const woken: string[] = [];
    const tracked: string[] = [];
    for (const [index, run] of chosen.runs.entries()) {
      const known = `${project.projectId}/${run.trigger.name}`;
      const result = await startUnattendedRun(tx, options.timing, {
        triggerId: options.kept?.triggerIds.get(known),
        organizationId: project.organizationId,
        projectId: project.projectId,
        revisionId: project.revisionId as string,
        model,
        triggerName: run.trigger.name,
        source: 'github',
        deliveryKey:
          index === 0 ? `github:${delivery.deliveryId}` : `github:${delivery.deliveryId}:${run.trigger.name}`,
        actor: event.actor,
        input: run.input,
        ...(run.prompt === undefined ? {} : { prompt: run.prompt }),
        event: runEvent(item, event, delivery.deliveryId),
        templateEvent: templateEvent(item),
      });
      if (result.outcome === 'started') {
        woken.push(result.daemonId);
        if (options.kept !== undefined) keep(options.kept.triggerIds, known, result.triggerId);
      }
      if (result.outcome === 'started' || result.outcome === 'failed') {
        started.push(`${result.outcome} ${run.trigger.name}`);
        tracked.push(result.triggerRunId);
      }
    }
    const outcome = started.join(', ') || 'already started';
    // Sent together: postgres.js pipelines them on the transaction's connection.
    await Promise.all([
      ...tracked.map((triggerRunId) => messages.trackRun({ ...base, triggerRunId, item })),
      ...(started.length > 0 ? [messages.queue({ ...base, kind: 'reaction', body: reactionOf(event.subject) })] : []),
      new DeliveryRepository(tx).done(delivery.deliveryId, outcome),
    ]);
    return { outcome, woken };
  });
  for (const daemonId of woken) options.wake(daemonId);
  return outcome;
}

/** The project's active model; an empty one when it has none (a mention then lists no triggers). */
async function modelOf(options: ProcessOptions, revisionId: string | null): Promise<CompiledConfiguration> {
  if (revisionId === null) return { shape: 'configuration', environments: [], triggers: [] };
  const kept = options.kept?.models.get(revisionId);
  if (kept !== undefined) return kept;
  const model = await revisionModel(options.sql, revisionId);
  if (options.kept !== undefined) keep(options.kept.models, revisionId, model);
  return model;
}

type Choice =
  | { kind: 'none'; reason: string }
  | { kind: 'reply'; body: string; outcome: string }
  | { kind: 'run'; runs: { trigger: CompiledTrigger; input: string; prompt?: string }[] };

const hasKind = (trigger: CompiledTrigger, kind: string) =>
  trigger.enabled && trigger.events.some((event) => (event.kind as string) === kind);
const labelOf = (trigger: CompiledTrigger) =>
  (trigger.events.find((event) => (event.kind as string) === 'github.label') as { name?: string } | undefined)?.name;
const allowed = (trigger: CompiledTrigger, login: string) =>
  trigger.allowlist.some((entry) => entry.toLowerCase() === login.toLowerCase());

/** What the event asks for in the project's active configuration. */
function choose(event: Exclude<GitHubEvent, { kind: 'ignored' }>, model: CompiledConfiguration, slug: string): Choice {
  if (event.kind === 'label') {
    const triggers = model.triggers.filter(
      (trigger) => hasKind(trigger, 'github.label') && labelOf(trigger)?.toLowerCase() === event.label.toLowerCase(),
    );
    if (triggers.length === 0) return { kind: 'none', reason: `no github.label trigger for "${event.label}"` };
    const permitted = triggers.filter((trigger) => allowed(trigger, event.actor));
    if (permitted.length === 0)
      return { kind: 'reply', body: refusedActorReply(event.actor, triggers[0]!, slug), outcome: 'refused actor' };
    const prompt = event.item.body === '' ? event.item.title : `${event.item.title}\n\n${event.item.body}`;
    return { kind: 'run', runs: permitted.map((trigger) => ({ trigger, input: '', prompt })) };
  }
  const mention = findMention(event.text, slug);
  if (mention === undefined) return { kind: 'none', reason: 'the app is not mentioned' };
  const mentionable = model.triggers.filter((trigger) => hasKind(trigger, 'github.mention'));
  const trigger =
    mentionable.find((candidate) => candidate.name === mention.trigger) ??
    mentionable.find((candidate) => candidate.name.toLowerCase() === mention.trigger.toLowerCase());
  if (trigger === undefined) {
    const names = mentionable.map((candidate) => candidate.name);
    const suggestion = mention.trigger === '' ? undefined : closest(mention.trigger, names);
    return {
      kind: 'reply',
      body: unknownTriggerReply(event.actor, mention.trigger, names, suggestion, slug),
      outcome: 'unknown trigger',
    };
  }
  if (!allowed(trigger, event.actor))
    return { kind: 'reply', body: refusedActorReply(event.actor, trigger, slug), outcome: 'refused actor' };
  return { kind: 'run', runs: [{ trigger, input: mention.input }] };
}

/** A pull request's head, asked of GitHub when the payload lacks it; without it (GitHub down), an empty branch. */
async function withHead(options: ProcessOptions, item: Item, needed: boolean): Promise<Item> {
  if (!needed || item.kind !== 'pull_request' || item.headSha !== undefined) return item;
  try {
    const head = await options.pullHead(item.installationId, item.repository, item.number);
    return { ...item, headSha: head.sha, headRef: head.ref };
  } catch {
    return item;
  }
}

function runEvent(item: Item, event: Exclude<GitHubEvent, { kind: 'ignored' }>, deliveryId: string) {
  return {
    trigger: event.kind === 'label' ? 'github.label' : 'github.mention',
    ...(event.kind === 'label' ? { label: event.label } : {}),
    ...templateEvent(item),
    deliveryId,
  };
}

function templateEvent(item: Item): Record<string, string> {
  return {
    repository: item.repository,
    number: String(item.number),
    // The run views keep at most 1,024 characters of a value; GitHub's titles have at most 256.
    title: item.title.slice(0, 1024),
    url: item.url.slice(0, 1024),
    kind: item.kind,
    branch: (item.headRef ?? '').slice(0, 1024),
  };
}

function reactionOf(subject: Subject): MessageBody {
  return subject;
}

async function finish(options: ProcessOptions, delivery: StoredDelivery, outcome: string): Promise<string> {
  await new DeliveryRepository(options.sql).done(delivery.deliveryId, outcome);
  return outcome;
}
