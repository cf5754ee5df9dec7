export { compileConfiguration, type ConfigurationInput } from './compile/configuration.js';
export { compileTrigger, TRIGGER_ENVIRONMENT, TRIGGER_STEP, type TriggerInput } from './compile/trigger.js';
export { compileBundle, type BundleInput } from './compile/bundle.js';
export { resolveResources, type ResourceCatalog } from './resources/resolve.js';
export { parseManualInput, type ManualInputResult } from './dispatch/input.js';
export { renderPrompt, type PromptValues } from './dispatch/render.js';
export { declaredInputs } from './model/inputs.js';
export { EVENT_VALUES, eventNamesOf, kindsGiving } from './model/events.js';
export { nextFireTimes } from './schedule/next.js';
export { checkCron, type CronProblem } from './schedule/cron.js';
export { describeCron } from './schedule/describe.js';
export { checkZone, timeZoneNames, type ZoneCheck } from './schedule/timezone.js';
export { checkPath, foldPath, type PathCheck } from './paths/check-path.js';
export { promptIncludes, type IncludeShape } from './paths/includes.js';
export { defaultLimits, type CompileOptions, type Limits } from './limits/limits.js';
export { issueCodes, type IssueCode } from './issues/codes.js';
export { didYouMean, suggest } from './issues/suggest.js';
export type { CompileResult, Issue } from './issues/issue.js';
export type {
  CompiledAgent,
  CompiledConfiguration,
  CompiledEnvironment,
  CompiledEvent,
  CompiledScheduleEntry,
  CompiledStep,
  CompiledTrigger,
  DeclaredInput,
  SourceRef,
} from './model/types.js';
