// Named wire types: the schemas of the bundled OpenAPI document that the hub and its clients
// share. One definition each (src-schemas/api/), never a second one in a package that uses it.
import type { components } from './generated/openapi.js';

type Schemas = components['schemas'];
export type WireSchema<Name extends keyof Schemas> = Schemas[Name];

/** An assignment as GET /api/v1/daemon/assignments/next delivers it. */
export type Assignment = Schemas['Assignment'];
export type AssignmentAnswer = Schemas['AssignmentAnswer'];
/** A daemon's report on an execution (POST /api/v1/daemon/executions/{executionId}/status). */
export type StatusReport = Schemas['StatusReport'];
export type StatusAnswer = Schemas['StatusAnswer'];
/** An RFC 9457 problem document, with the members of both shapes. */
export type Problem = Schemas['Problem'];
export type ProblemCode = Problem['code'];
/** One field issue of a 400 or 422 problem. */
export type FieldIssue = Schemas['FieldIssue'];
export type IssueCode = FieldIssue['code'];
/** A run and its executions (GET /api/v1/runs/{triggerRunId}). */
export type Run = Schemas['Run'];
export type Execution = Schemas['Execution'];
export type ManualRunRequest = Schemas['ManualRunRequest'];
