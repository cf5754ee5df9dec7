import type { ManualRunRequest } from '@hub/schemas';
import { createHash } from 'node:crypto';

/** A dispatch as either shape asks for it (DECISIONS.md, Dispatch): the document's ManualRunRequest. */
export type DispatchRequest = ManualRunRequest;

/** What makes two dispatches the same request: everything but the shape and the key itself. */
export function digestOf(request: DispatchRequest): Buffer {
  const fields = [
    request.projectSlug,
    request.trigger,
    request.actor,
    request.input ?? '',
    request.expectedVersionId?.toLowerCase() ?? null,
  ];
  return createHash('sha256').update(JSON.stringify(fields)).digest();
}
