// What an agent process gets besides its prompt: its argv and its environment.
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Assignment } from '@hub/schemas';
import type { ProviderConfig } from './config.js';

/**
 * The provider's command with `{mode}` and `{model}` replaced by the assignment's. An argument
 * whose placeholder has no value is dropped whole, so write `--model={model}` rather than
 * `--model {model}` for an option that should disappear with it.
 */
export function commandLine(command: string[], agent: Assignment['agent']): string[] {
  const values: Record<string, string | undefined> = { mode: agent.mode, model: agent.model };
  const args: string[] = [];
  for (const arg of command) {
    let missing = false;
    const replaced = arg.replace(/\{(mode|model)\}/g, (_, name: string) => {
      const value = values[name];
      if (value === undefined) missing = true;
      return value ?? '';
    });
    if (!missing) args.push(replaced);
  }
  return args;
}

/** `HUB_INPUT_` and the input's name uppercased, anything but letters and digits as `_`. */
export function inputVariable(name: string): string {
  return `HUB_INPUT_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/**
 * The agent's environment: the daemon's own, then the provider's `env`, then the assignment's
 * variables, which nothing overrides. Variables of this protocol that the daemon itself inherited
 * (an input of an outer execution, the enrollment token) are not passed on.
 */
export function executionEnvironment(
  assignment: Assignment,
  provider: ProviderConfig,
  base: NodeJS.ProcessEnv,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(base)) {
    if (!name.startsWith('HUB_INPUT_') && !PROTOCOL_VARIABLES.has(name)) env[name] = value;
  }
  Object.assign(env, provider.env);
  for (const [name, value] of Object.entries(assignment.inputs)) env[inputVariable(name)] = value;
  env.HUB_INPUTS = JSON.stringify(assignment.inputs);
  env.HUB_EXECUTION_ID = assignment.executionId;
  env.HUB_TRIGGER_RUN_ID = assignment.triggerRunId;
  env.HUB_STEP_ID = assignment.stepId;
  env.HUB_ACTOR = assignment.actor;
  env.HUB_AGENT_PROVIDER = assignment.agent.provider;
  if (assignment.agent.mode !== undefined) env.HUB_AGENT_MODE = assignment.agent.mode;
  if (assignment.agent.model !== undefined) env.HUB_AGENT_MODEL = assignment.agent.model;
  return env;
}

const PROTOCOL_VARIABLES = new Set([
  'HUB_ENROLLMENT_TOKEN',
  'HUB_INPUTS',
  'HUB_EXECUTION_ID',
  'HUB_TRIGGER_RUN_ID',
  'HUB_STEP_ID',
  'HUB_ACTOR',
  'HUB_AGENT_PROVIDER',
  'HUB_AGENT_MODE',
  'HUB_AGENT_MODEL',
]);

/** The assignment's `cwd` with a leading `~` as the home directory. */
export function workingDirectory(cwd: string, home = homedir()): string {
  if (cwd === '~') return home;
  if (cwd.startsWith('~/')) return join(home, cwd.slice(2));
  return resolve(cwd);
}
