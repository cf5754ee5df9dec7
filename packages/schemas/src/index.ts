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

// The HTTP contract: the bundled OpenAPI document (`@hub/schemas/openapi.json`) as types, for the
// hub, its clients and the generated client (openapi-fetch).
export type { components, operations, paths } from './generated/openapi.js';
export type {
  Assignment,
  AssignmentAnswer,
  Execution,
  FieldIssue,
  IssueCode,
  ManualRunRequest,
  Problem,
  ProblemCode,
  Run,
  StatusAnswer,
  StatusReport,
  WireSchema,
} from './wire.js';

// The rules of the fields people type, shared by the dashboard's forms and the hub's services.
export {
  acceptableEmail,
  acceptableName,
  acceptablePassword,
  EMAIL_MAX,
  EMAIL_PATTERN,
  formatUserCode,
  isSlug,
  isCanonicalUuid,
  isUuid,
  NAME_MAX,
  nameIssue,
  normalizeEmail,
  normalizeName,
  normalizePassword,
  parseUserCode,
  PASSWORD_LENGTH,
  passwordIssue,
  isRepository,
  REPOSITORY_MAX,
  REPOSITORY_PATTERN,
  SLUG_PATTERN,
  USER_CODE_ALPHABET,
  USER_CODE_LENGTH,
  UUID_PATTERN,
} from './fields.js';
export { closest, editDistance } from './closest.js';
