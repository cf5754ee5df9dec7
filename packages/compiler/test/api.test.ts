import { describe, expect, it } from 'vitest';
import {
  compileBundle,
  compileConfiguration,
  compileTrigger,
  defaultLimits,
  TRIGGER_ENVIRONMENT,
  TRIGGER_STEP,
} from '../src/index.js';
import { exampleBundle, exampleConfiguration, exampleTrigger } from './support/documents.js';

const partials = [{ path: 'testing.md', content: 'Run the whole suite.\n\n' }];

describe('compileConfiguration', () => {
  it('compiles the example into the shared model', () => {
    const result = compileConfiguration({ yaml: exampleConfiguration, partials });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.warnings).toEqual([]);
    const [environment] = result.value.environments;
    expect(environment).toMatchObject({ name: 'laptop', kind: 'daemon', daemon: 'dev-box', cwd: '~/src/app' });
    expect(environment?.daemonSource).toEqual({ pointer: '/environments/0/daemon', line: 5, column: 13 });
    const [trigger] = result.value.triggers;
    expect(trigger).toMatchObject({
      name: 'fix-tests',
      enabled: true,
      maxRuntimeMs: 2 * 3600_000,
      allowlist: ['dev-lead', 'ci-bot'],
      events: [
        {
          kind: 'manual.run',
          inputs: [{ name: 'branch', description: 'Branch to fix', required: false, default: 'main' }],
        },
      ],
    });
    expect(trigger?.steps).toEqual([
      {
        id: 'fix',
        environment: 'laptop',
        maxRuntimeMs: 3600_000,
        idleTimeoutMs: 600_000,
        agent: {
          provider: 'claude',
          mode: 'edit',
          sources: {
            provider: { pointer: '/triggers/0/steps/0/agent/provider', line: 21, column: 28 },
            mode: { pointer: '/triggers/0/steps/0/agent/mode', line: 21, column: 42 },
          },
        },
        prompt: 'Fix the failing tests on {{ inputs.branch }}. {{ prompt }}\n\nRun the whole suite.',
      },
    ]);
  });

  it('defaults a step max_runtime to its trigger and idle_timeout to none', () => {
    const yaml = exampleConfiguration.replace('        max_runtime: 1h\n        idle_timeout: 10m\n', '');
    const result = compileConfiguration({ yaml, partials });
    expect(result.ok && result.value.triggers[0]?.steps[0]).toMatchObject({
      maxRuntimeMs: 2 * 3600_000,
      idleTimeoutMs: null,
    });
  });

  it('takes numbers and booleans of inputs as their text', () => {
    const yaml = exampleConfiguration.replace('default: main }', 'default: 3, enum: [1, 2, 3, true] }');
    const result = compileConfiguration({ yaml, partials });
    const event = result.ok ? result.value.triggers[0]?.events[0] : undefined;
    expect(event?.kind === 'manual.run' && event.inputs[0]).toMatchObject({
      default: '3',
      enum: ['1', '2', '3', 'true'],
    });
  });

  it.each([
    [undefined, '/yaml'],
    [null, '/yaml'],
    ['environments: []', '/yaml'],
    [{ yaml: 42 }, '/yaml'],
    [{ yaml: '', partials: 'x' }, '/partials'],
    [{ yaml: '', partials: [null] }, '/partials/0'],
    [{ yaml: '', partials: [{ path: 1, content: '' }] }, '/partials/0/path'],
    [{ yaml: '', partials: [{ path: 'a.md' }] }, '/partials/0/content'],
  ])('answers input.invalid for %j instead of throwing', (input, pointer) => {
    const result = compileConfiguration(input as never);
    expect(result).toEqual({ ok: false, issues: [expect.objectContaining({ code: 'input.invalid', pointer })] });
  });

  it('honours limits passed as options, and ignores nonsense ones', () => {
    const small = compileConfiguration({ yaml: exampleConfiguration, partials }, { limits: { maxYamlLength: 10 } });
    expect(small.ok ? [] : small.issues.map((issue) => issue.code)).toEqual(['limit.yaml_length']);
    const nonsense = compileConfiguration(
      { yaml: exampleConfiguration, partials },
      { limits: { maxYamlLength: -1, maxDepth: 'x' as never } },
    );
    expect(nonsense.ok).toBe(true);
  });

  it('caps the issues and says how many more there were', () => {
    const yaml = `environments: []\ntriggers: [${Array.from({ length: 150 }, (_, i) => `{ name: t${i} }`).join(', ')}]\n`;
    const result = compileConfiguration({ yaml }, { limits: { maxIssues: 10 } });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues).toHaveLength(11);
    expect(result.issues[10]).toMatchObject({ code: 'issues.truncated', message: expect.stringMatching(/\d+ more/) });
    expect(defaultLimits.maxIssues).toBe(100);
  });
});

describe('compileTrigger', () => {
  it('compiles a trigger into one environment and one step', () => {
    const result = compileTrigger({ yaml: exampleTrigger });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.environments).toMatchObject([
      { name: TRIGGER_ENVIRONMENT, daemon: 'build-box', cwd: '/srv/repo' },
    ]);
    expect(result.value.triggers[0]).toMatchObject({
      name: 'nightly-triage',
      maxRuntimeMs: 30 * 60_000,
      steps: [
        { id: TRIGGER_STEP, environment: TRIGGER_ENVIRONMENT, maxRuntimeMs: 30 * 60_000, idleTimeoutMs: 5 * 60_000 },
      ],
    });
    expect(result.value.triggers[0]?.steps[0]?.agent).toMatchObject({
      provider: 'codex',
      model: 'gpt-5',
      mode: 'auto',
    });
  });

  it('keeps enabled: false', () => {
    const result = compileTrigger({ yaml: exampleTrigger.replace('enabled: true', 'enabled: false') });
    expect(result.ok && result.value.triggers[0]?.enabled).toBe(false);
  });
});

describe('compileBundle', () => {
  it('resolves a named agent from the hub file', () => {
    const result = compileBundle({ files: exampleBundle });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.triggers[0]?.steps[0]?.agent).toMatchObject({
      name: 'reviewer',
      provider: 'claude',
      mode: 'review',
      sources: { provider: { file: '.hub/hub.yml', pointer: '/agents/reviewer/provider' } },
    });
    expect(result.value.triggers[0]?.steps[0]?.prompt).toContain('Point at the exact line');
  });

  it('answers input.invalid when files is not a list of { path, content }', () => {
    for (const input of [undefined, {}, { files: {} }, { files: [{ path: 'x' }] }]) {
      const result = compileBundle(input as never);
      expect(result.ok ? [] : result.issues.map((issue) => issue.code)).toEqual(['input.invalid']);
    }
  });
});
