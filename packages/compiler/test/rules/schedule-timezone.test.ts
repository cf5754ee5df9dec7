import { describe, expect, it } from 'vitest';
import { checkZone, compileConfiguration } from '../../src/index.js';
import { configurationWith } from '../support/documents.js';

const withZone = (zone: string) =>
  configurationWith({ on: `{ schedule: [{ cron: "0 2 * * *", timezone: ${JSON.stringify(zone)} }] }` });

describe('scheduleTimezone', () => {
  it.each([
    'UTC',
    'Europe/Berlin',
    'America/New_York',
    'Asia/Kolkata',
    'Asia/Calcutta',
    'Australia/Lord_Howe',
    'Etc/GMT+5',
  ])('accepts %s', (zone) => {
    expect(checkZone(zone)).toEqual({ ok: true });
    expect(compileConfiguration({ yaml: withZone(zone) }).ok).toBe(true);
  });

  it.each([
    ['Europe/Berln', 'Europe/Berlin'],
    ['europe/berlin', 'Europe/Berlin'],
    ['EUROPE/BERLIN', 'Europe/Berlin'],
    ['utc', 'UTC'],
    ['Amrica/New_York', 'America/New_York'],
    ['asia/kolkata', 'Asia/Kolkata'],
  ])('refuses %s, suggesting %s', (zone, suggestion) => {
    expect(checkZone(zone)).toEqual(expect.objectContaining({ ok: false, suggestion }));
    const result = compileConfiguration({ yaml: withZone(zone) });
    expect(result.ok ? [] : result.issues).toEqual([
      expect.objectContaining({ code: 'schedule.timezone', pointer: '/triggers/0/on/schedule/0/timezone', suggestion }),
    ]);
  });

  it.each(['Mars/Olympus_Mons', '+02:00', '', 'Berlin'])('refuses %j', (zone) => {
    expect(checkZone(zone).ok).toBe(false);
  });
});
