import type { TriggerHint } from './model.js';

/** A key that passed the dispatch key check: what its digest stood for then. */
export interface KeyHint {
  keyId: string;
  organizationId: string;
}

/** Hints kept per instance, each map at most this many entries (the least recently used goes). */
export const HINTS_AT_MOST = 1_000;

/**
 * What earlier dispatches on this instance learned, for the one-statement path (runs/dispatch/hinted.ts):
 * never an answer on its own. A hint that is no longer true makes that statement start nothing,
 * and the dispatch takes the exact path, which refreshes it.
 */
export class DispatchHints {
  private readonly keys: Lru<KeyHint>;
  private readonly triggers: Lru<TriggerHint>;

  constructor(atMost = HINTS_AT_MOST) {
    this.keys = new Lru(atMost);
    this.triggers = new Lru(atMost);
  }

  key(digest: string): KeyHint | undefined {
    return this.keys.get(digest);
  }

  trigger(organizationId: string, projectSlug: string, name: string): TriggerHint | undefined {
    return this.triggers.get(triggerKey(organizationId, projectSlug, name));
  }

  rememberKey(digest: string, hint: KeyHint): void {
    this.keys.set(digest, hint);
  }

  rememberTrigger(organizationId: string, projectSlug: string, name: string, hint: TriggerHint): void {
    this.triggers.set(triggerKey(organizationId, projectSlug, name), hint);
  }

  forgetKey(digest: string): void {
    this.keys.delete(digest);
  }

  forgetTrigger(organizationId: string, projectSlug: string, name: string): void {
    this.triggers.delete(triggerKey(organizationId, projectSlug, name));
  }

  /** How many hints are kept, for tests. */
  get size(): { keys: number; triggers: number } {
    return { keys: this.keys.size, triggers: this.triggers.size };
  }
}

const triggerKey = (organizationId: string, projectSlug: string, name: string) =>
  `${organizationId}\u0000${projectSlug}\u0000${name}`;

/** A Map in least recently used order: a hit moves its entry to the end, the first goes past `atMost`. */
class Lru<V> {
  private readonly map = new Map<string, V>();

  constructor(private readonly atMost: number) {}

  get(key: string): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined) {
      this.map.delete(key);
      this.map.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.atMost) this.map.delete(this.map.keys().next().value as string);
  }

  delete(key: string): void {
    this.map.delete(key);
  }

  get size(): number {
    return this.map.size;
  }
}
