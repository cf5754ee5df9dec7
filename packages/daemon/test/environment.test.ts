// An agent's argv and environment, from its provider's command and the assignment.
import { describe, expect, it } from 'vitest';
import { commandLine, executionEnvironment, inputVariable, workingDirectory } from '../src/environment.js';

const assignment = {
  executionId: 'e',
  triggerRunId: 'r',
  stepId: 's',
  cwd: '/',
  agent: { provider: 'claude' },
  prompt: '',
  inputs: {},
  actor: 'alice',
  maxRuntimeMs: 60_000,
  idleTimeoutMs: null,
};

describe('commandLine', () => {
  it.each([
    [
      ['claude', '-p', '--model={model}', '--permission-mode={mode}'],
      { mode: 'plan', model: 'opus' },
      ['claude', '-p', '--model=opus', '--permission-mode=plan'],
    ],
    [
      ['claude', '-p', '--model={model}', '--permission-mode={mode}'],
      { mode: 'plan' },
      ['claude', '-p', '--permission-mode=plan'],
    ],
    [['agent', '{mode}/{model}'], { mode: 'edit' }, ['agent']],
    [['agent', '{mode}-{mode}', '{other}'], { mode: 'edit' }, ['agent', 'edit-edit', '{other}']],
    [['agent', '{model}'], { model: '$HOME; rm -rf /' }, ['agent', '$HOME; rm -rf /']],
  ])('%j with %j is %j', (command, agent, expected) => {
    expect(commandLine(command, { provider: 'p', ...agent })).toEqual(expected);
  });
});

describe('inputVariable', () => {
  it.each([
    ['branch', 'HUB_INPUT_BRANCH'],
    ['target-branch', 'HUB_INPUT_TARGET_BRANCH'],
    ['a.b c', 'HUB_INPUT_A_B_C'],
    ['Mixed_Case9', 'HUB_INPUT_MIXED_CASE9'],
  ])('%s is %s', (name, variable) => {
    expect(inputVariable(name)).toBe(variable);
  });
});

describe('executionEnvironment', () => {
  it('passes the daemon environment on, minus what belongs to this protocol, and lets nothing override the assignment', () => {
    const env = executionEnvironment(
      { ...assignment, inputs: { x: '1' }, agent: { provider: 'claude', model: 'opus' } },
      { command: ['claude'], env: { HUB_ACTOR: 'mallory', TOOL: 'on' } },
      {
        PATH: '/bin',
        HUB_URL: 'http://hub',
        HUB_ENROLLMENT_TOKEN: 'hub_et_secret',
        HUB_INPUT_OLD: 'stale',
        HUB_AGENT_MODE: 'stale',
      },
    );
    expect(env).toEqual({
      PATH: '/bin',
      HUB_URL: 'http://hub',
      TOOL: 'on',
      HUB_INPUT_X: '1',
      HUB_INPUTS: '{"x":"1"}',
      HUB_EXECUTION_ID: 'e',
      HUB_TRIGGER_RUN_ID: 'r',
      HUB_STEP_ID: 's',
      HUB_ACTOR: 'alice',
      HUB_AGENT_PROVIDER: 'claude',
      HUB_AGENT_MODEL: 'opus',
    });
  });
});

describe('workingDirectory', () => {
  it.each([
    ['~', '/home/me'],
    ['~/src/app', '/home/me/src/app'],
    ['/srv/app', '/srv/app'],
    ['/srv/app/../other', '/srv/other'],
    ['~other/app', `${process.cwd()}/~other/app`],
  ])('%s is %s', (cwd, expected) => {
    expect(workingDirectory(cwd, '/home/me')).toBe(expected);
  });
});
