import { allowlistRequired } from './allowlist-required.js';
import type { Rule } from './context.js';
import { durationsFit } from './durations-fit.js';
import { environmentsUsed } from './environments-used.js';
import { idleTimeoutWithinMaxRuntime } from './idle-timeout-within-max-runtime.js';
import { includesResolve } from './includes-resolve.js';
import { inputsDeclaredOnce } from './inputs-declared-once.js';
import { inputDefaultsInEnum } from './input-defaults-in-enum.js';
import { kindsInProject } from './kinds-in-project.js';
import { placeholdersDeclared } from './placeholders-declared.js';
import { scheduleCron } from './schedule-cron.js';
import { scheduleInput } from './schedule-input.js';
import { scheduleTimezone } from './schedule-timezone.js';
import { stepAgentExists } from './step-agent-exists.js';
import { stepEnvironmentExists } from './step-environment-exists.js';
import { stepMaxRuntimeWithinTrigger } from './step-max-runtime-within-trigger.js';
import { uniqueEnvironmentNames } from './unique-environment-names.js';
import { uniqueStepIds } from './unique-step-ids.js';
import { uniqueTriggerNames } from './unique-trigger-names.js';

export type { RuleContext } from './context.js';

/** Every cross-field rule, in the order they run; includesResolve comes before placeholders. */
export const rules: readonly Rule[] = [
  uniqueEnvironmentNames,
  uniqueTriggerNames,
  uniqueStepIds,
  stepEnvironmentExists,
  stepAgentExists,
  durationsFit,
  stepMaxRuntimeWithinTrigger,
  idleTimeoutWithinMaxRuntime,
  allowlistRequired,
  inputsDeclaredOnce,
  inputDefaultsInEnum,
  scheduleCron,
  scheduleTimezone,
  scheduleInput,
  kindsInProject,
  includesResolve,
  placeholdersDeclared,
  environmentsUsed,
];
