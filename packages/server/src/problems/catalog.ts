/** Every problem the hub answers with: code → status and title (RFC 9457). One place. */
export const problemCatalog = {
  invalid_request: { status: 400, title: 'Invalid request' },
  unauthorized: { status: 401, title: 'Authentication required' },
  enrollment_token_invalid: { status: 401, title: 'Invalid enrollment token' },
  insufficient_scope: { status: 403, title: 'Insufficient scope' },
  not_found: { status: 404, title: 'Not found' },
  project_not_found: { status: 404, title: 'Project not found' },
  organization_not_found: { status: 404, title: 'Organization not found' },
  api_key_not_found: { status: 404, title: 'API key not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  organization_exists: { status: 409, title: 'Organization exists' },
  project_exists: { status: 409, title: 'Project exists' },
  daemon_name_taken: { status: 409, title: 'Daemon name taken' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  invalid_configuration: { status: 422, title: 'Invalid configuration' },
  invalid_trigger: { status: 422, title: 'Invalid trigger' },
  internal_error: { status: 500, title: 'Internal server error' },
  not_ready: { status: 503, title: 'Not ready' },
} as const;

export type ProblemCode = keyof typeof problemCatalog;
