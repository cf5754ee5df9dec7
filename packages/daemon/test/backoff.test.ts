// Waiting out a hub that is down, busy or without its database: the backoff's jittered steps and
// the hub's Retry-After as their floor.
import { describe, expect, it } from 'vitest';
import { Backoff, Outage, sleep } from '../src/backoff.js';
import { HubError, parseRetryAfter, retryAfterMs } from '../src/client.js';

describe('Backoff', () => {
  it('doubles from 0.5 s to 30 s, each wait between half and all of its step', () => {
    const backoff = new Backoff();
    const steps = [500, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000];
    for (const step of steps) {
      const wait = backoff.next();
      expect(wait).toBeGreaterThanOrEqual(step / 2);
      expect(wait).toBeLessThanOrEqual(step);
    }
    backoff.reset();
    expect(backoff.next()).toBeLessThanOrEqual(500);
  });

  it('never waits less than Retry-After (spread by up to half again), and at most 8 s a step while the hub answers with it', () => {
    const backoff = new Backoff();
    for (let attempt = 0; attempt < 12; attempt++) {
      const wait = backoff.next(1_000);
      expect(wait).toBeGreaterThanOrEqual(1_000);
      expect(wait).toBeLessThanOrEqual(8_000);
    }
    const long = new Backoff().next(20_000);
    expect(long).toBeGreaterThanOrEqual(20_000);
    expect(long).toBeLessThanOrEqual(30_000);
  });
});

describe('Outage', () => {
  it('is logged once and its end once, and its end wakes the retries waiting out their backoff', async () => {
    const logs: string[] = [];
    const outage = new Outage((message) => logs.push(message));
    const signal = outage.recovered;
    outage.succeeded();
    expect(signal.aborted).toBe(false);
    outage.failed('cannot reach the hub');
    outage.failed('cannot reach the hub');
    // A retry 30 s away: the test's own timeout ends it unless the hub's answer wakes it.
    const waiting = sleep(30_000, outage.recovered);
    outage.succeeded();
    expect(await waiting).toBe(false);
    expect(signal.aborted).toBe(true);
    expect(outage.recovered.aborted).toBe(false);
    expect(logs).toEqual([
      'The hub is unavailable (cannot reach the hub); retrying with backoff until it answers.',
      'The hub answers again after 0 s.',
    ]);
  });
});

describe('Retry-After', () => {
  it.each([
    ['1', 1_000],
    [' 120 ', 120_000],
    ['0', 0],
    ['86400', 300_000],
  ])('reads delay seconds: %j is %d ms (at most 5 minutes)', (value, ms) => {
    expect(parseRetryAfter(value)).toBe(ms);
  });

  it('reads an HTTP date, from now; a date past is no wait', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
  });

  it.each([null, '', 'soon', '-1', '1.5'])('takes %j for no Retry-After', (value) => {
    expect(parseRetryAfter(value)).toBeUndefined();
  });

  it('is the floor a HubError carries, and none for other failures', () => {
    expect(retryAfterMs(new HubError(503, { code: 'database_unavailable' }, undefined, 1_000))).toBe(1_000);
    expect(retryAfterMs(new HubError(500, {}, undefined))).toBe(0);
    expect(retryAfterMs(new Error('connection refused'))).toBe(0);
  });
});
