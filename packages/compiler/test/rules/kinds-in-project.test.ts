import { describe, expect, it } from 'vitest';
import { compileBundle, compileConfiguration, compileTrigger } from '../../src/index.js';
import { configurationWith, legacyHub } from '../support/documents.js';

const trigger = (on: string) => `name: triage
on: ${on}
filters: { from_users: [octocat] }
run:
  target: { daemon: build-box, cwd: /srv/repo }
  agent: { provider: codex, prompt: "Triage. {{ prompt }}", max_runtime: 30m }
`;

const issues = (yaml: string) => {
  const result = compileTrigger({ yaml });
  return result.ok ? [] : result.issues.map((issue) => [issue.code, issue.pointer, issue.line, issue.column]);
};

describe('kindsInProject', () => {
  it.each([
    ['schedule', '{ schedule: [{ cron: "@daily" }] }', 'schedule.organization_trigger', '/on/schedule', 7],
    ['github.mention', '{ github.mention: {} }', 'github.organization_trigger', '/on/github.mention', 7],
    ['github.mention without options', '{ github.mention: }', 'github.organization_trigger', '/on/github.mention', 7],
    ['github.label', '{ github.label: { name: x } }', 'github.organization_trigger', '/on/github.label', 7],
  ])('refuses %s in an organization trigger, at its key', (_case, on, code, pointer, column) => {
    expect(issues(trigger(on))).toEqual([[code, pointer, 2, column]]);
  });

  it('reports each GitHub kind of a trigger', () => {
    expect(issues(trigger('{ manual.run: {}, github.mention: {}, github.label: { name: x } }'))).toEqual([
      ['github.organization_trigger', '/on/github.mention', 2, 23],
      ['github.organization_trigger', '/on/github.label', 2, 43],
    ]);
  });

  it('says where the GitHub kind goes', () => {
    const result = compileTrigger({ yaml: trigger('{ github.label: { name: x } }') });
    expect(result.ok ? '' : result.issues[0]?.message).toBe(
      'GitHub events are read against the active configuration of the project that names the repository, ' +
        'and an organization trigger belongs to no project: put this github.label in the configuration ' +
        '(.hub/config.yml) of the project whose repository it should answer.',
    );
  });

  it('accepts manual.run in an organization trigger', () => {
    expect(issues(trigger('{ manual.run: {} }'))).toEqual([]);
  });

  it('accepts every kind in a configuration and a legacy workflow', () => {
    const on = '{ manual.run: {}, schedule: [{ cron: "@daily" }], github.mention: {}, github.label: { name: x } }';
    expect(compileConfiguration({ yaml: configurationWith({ on }) }).ok).toBe(true);
    const workflow = `name: triage
on: ${on}
max_runtime: 1h
filters: { from_users: [octocat] }
steps:
  - { id: triage, environment: build, agent: reviewer, prompt: [{ text: "Triage. {{ prompt }}" }] }
`;
    const files = [
      { path: '.hub/hub.yml', content: legacyHub },
      { path: '.hub/workflows/triage.yml', content: workflow },
    ];
    expect(compileBundle({ files }).ok).toBe(true);
  });
});
