import type { ErrorObject } from 'ajv';
import { configuration, legacyHub, legacyWorkflow, trigger } from './generated/validators.js';

export type DocumentKind = 'configuration' | 'trigger' | 'legacy-hub' | 'legacy-workflow';

/**
 * A schema's validator as ajv's standalone code makes it: ajv's ValidateFunction without the
 * compiled schema (`schema`, `schemaEnv`), which nothing here reads.
 */
export type Validator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

// Compiled at build time from @hub/schemas by scripts/generate-validators.js, with the options
// strict, allErrors, allowUnionTypes, verbose and messages: false; nothing is compiled at start.
const validators: Record<DocumentKind, Validator> = {
  configuration,
  trigger,
  'legacy-hub': legacyHub,
  'legacy-workflow': legacyWorkflow,
};

/** The schema's validator. */
export function validatorFor(kind: DocumentKind): Validator {
  return validators[kind];
}
