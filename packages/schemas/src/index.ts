export {
  configurationSchema,
  triggerSchema,
  legacyHubSchema,
  legacyWorkflowSchema,
  type JsonSchema,
} from './generated/schemas.js';
export type { HubConfiguration } from './generated/configuration.js';
export type { HubTrigger } from './generated/trigger.js';
export type { HubLegacyHubFile } from './generated/legacy-hub.js';
export type { HubLegacyWorkflow } from './generated/legacy-workflow.js';
