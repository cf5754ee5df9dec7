import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import {
  configurationSchema,
  legacyHubSchema,
  legacyWorkflowSchema,
  triggerSchema,
  type JsonSchema,
} from '@hub/schemas';

export type DocumentKind = 'configuration' | 'trigger' | 'legacy-hub' | 'legacy-workflow';

const schemas: Record<DocumentKind, JsonSchema> = {
  configuration: configurationSchema,
  trigger: triggerSchema,
  'legacy-hub': legacyHubSchema,
  'legacy-workflow': legacyWorkflowSchema,
};

let ajv: Ajv2020 | undefined;
const compiled = new Map<DocumentKind, ValidateFunction>();

/** The schema's validator, compiled on first use and kept. */
export function validatorFor(kind: DocumentKind): ValidateFunction {
  let validate = compiled.get(kind);
  if (validate === undefined) {
    ajv ??= new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true, verbose: true, messages: false });
    validate = ajv.compile(schemas[kind]);
    compiled.set(kind, validate);
  }
  return validate;
}
