// The JSON text of each deploy request, built in one place: `hub deploy --dry-run` sends to the
// validate endpoint exactly the text that `hub deploy` sends to install (specification, section 1).
import type { Unit } from './discovery.js';

export interface Request {
  /** The install endpoint; the validate endpoint is its sibling. */
  install: string;
  validate: string;
  /** The body, byte for byte the same for both. */
  body: string;
}

/** A trigger: `{ yaml }`. A configuration: `{ projectSlug, yaml, partials }`. A legacy bundle: `{ projectSlug, files }`. */
export function requestFor(unit: Unit, projectSlug?: string): Request {
  if (unit.kind === 'trigger')
    return {
      install: '/api/v1/triggers/install',
      validate: '/api/v1/triggers/validate',
      body: JSON.stringify({ yaml: unit.yaml }),
    };
  const content = unit.kind === 'configuration' ? { yaml: unit.yaml, partials: unit.partials } : { files: unit.files };
  return {
    install: '/api/v1/configurations/install',
    validate: '/api/v1/configurations/validate',
    body: JSON.stringify({ projectSlug, ...content }),
  };
}
