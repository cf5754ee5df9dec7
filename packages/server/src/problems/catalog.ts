/** One problem of the catalog: its HTTP status and title (RFC 9457), and what its page says. */
export interface ProblemEntry {
  status: number;
  title: string;
  /** When the hub answers it: one or two sentences. `code` spans are set in monospace on the page. */
  meaning: string;
  /** What the client should do about it. */
  action: string;
}

/**
 * Every problem the hub answers with: code → status, title, meaning and action. One place; the
 * problem documents, the OpenAPI document and the pages at /problems/<code> all read it.
 */
export const problemCatalog = {
  invalid_request: {
    status: 400,
    title: 'Invalid request',
    meaning:
      "The request itself is malformed: the body is not JSON, a field is missing, unknown or of the wrong type, a query parameter is out of range, or a manual run's `input` does not fill the trigger's inputs. `issues` lists every problem, each with a `request.*` code and a JSON pointer into the body.",
    action:
      'Fix each listed issue at its pointer and send the request again; the same request gets the same answer. On `/api/manual-runs` the body is just `{ "error": "invalid_request" }`.',
  },
  unauthorized: {
    status: 401,
    title: 'Authentication required',
    meaning:
      'The request has no credential the hub accepts: missing, malformed, unknown, revoked and expired credentials are all answered alike. For a daemon, the signature is missing or bad, its timestamp is more than 60 s off, its nonce was seen before, or the daemon is retired.',
    action:
      'Send a valid, unrevoked API key as `Authorization: Bearer hub_pk_…` (the admin token on the operator API); a daemon signs each request as the `WWW-Authenticate` header says, with a clock in sync.',
  },
  enrollment_token_invalid: {
    status: 401,
    title: 'Invalid enrollment token',
    meaning:
      'The enrollment token sent to `POST /api/v1/daemons/enroll` is unknown, already used, expired, or the API key that issued it was revoked.',
    action:
      'Ask for a new token with `POST /api/v1/daemons/enrollment-tokens` (a key with the scope `daemons:enroll`) and enroll once with it; a token works only once.',
  },
  insufficient_scope: {
    status: 403,
    title: 'Insufficient scope',
    meaning: 'The API key is valid but lacks the scope this operation needs; `requiredScope` names it.',
    action:
      "Use a key that has `requiredScope`, or ask an operator for a new key with it; an existing key's scopes do not change.",
  },
  actor_forbidden: {
    status: 403,
    title: 'Actor not allowed',
    meaning:
      'The `actor` of a manual run is not in the trigger\'s `filters.from_users`, which `allowedActors` lists. On `/api/manual-runs` the body is just `{ "error": "actor_forbidden" }`.',
    action:
      'Dispatch as one of the allowed users, or add the actor to `filters.from_users` and install the configuration again.',
  },
  not_found: {
    status: 404,
    title: 'Not found',
    meaning: 'Nothing is at this method and path: no such route, reference asset or problem code.',
    action:
      'Check the path against the API reference at `/api/reference`, and the code against the list at `/problems`.',
  },
  project_not_found: {
    status: 404,
    title: 'Project not found',
    meaning: 'The organization has no active project with the slug given (`projectSlug`, or the slug in the path).',
    action: 'Check the slug with `GET /api/v1/projects`; an operator creates projects on the operator API.',
  },
  organization_not_found: {
    status: 404,
    title: 'Organization not found',
    meaning: 'On the operator API: no organization has the slug in the path.',
    action: 'Check the slug, or create the organization first with `POST /api/admin/v1/organizations`.',
  },
  api_key_not_found: {
    status: 404,
    title: 'API key not found',
    meaning: 'On the operator API: the organization has no API key with the id in the path.',
    action:
      "List the organization's keys with `GET /api/admin/v1/organizations/{org}/api-keys` and use one of their ids.",
  },
  github_installation_not_found: {
    status: 404,
    title: 'GitHub installation not found',
    meaning: 'On the operator API: no installation with the id in the path is linked to the organization.',
    action:
      "List the organization's installations with `GET /api/admin/v1/organizations/{org}/github-installations` and use one of their ids.",
  },
  trigger_not_found: {
    status: 404,
    title: 'Trigger not found',
    meaning:
      "Neither the project's active configuration nor the organization's triggers have a `manual.run` trigger of that name, or the trigger has no steps to run.",
    action:
      "Check the trigger's name and its `on: manual.run`, install the configuration or trigger that declares it, then dispatch again.",
  },
  run_not_found: {
    status: 404,
    title: 'Run not found',
    meaning: 'The organization has no trigger run with the id in the path.',
    action: 'Use the `triggerRunId` that the dispatch answered with.',
  },
  execution_not_found: {
    status: 404,
    title: 'Execution not found',
    meaning:
      'No execution with that id: a daemon reported on (or sent output for) an execution never assigned to it, or an API client asked for one that is not in a run of its organization.',
    action:
      'A daemon: report only on executions received from `GET /api/v1/daemon/assignments/next`, under the same daemon identity. An API client: take the id from a dispatch (shape A) or from `GET /api/v1/runs/{triggerRunId}`.',
  },
  method_not_allowed: {
    status: 405,
    title: 'Method not allowed',
    meaning: 'The path exists, but not with this HTTP method; the `Allow` header lists the methods it takes.',
    action: 'Send the request again with one of the methods in `Allow`.',
  },
  organization_exists: {
    status: 409,
    title: 'Organization exists',
    meaning: 'On the operator API: an organization already has this slug.',
    action: 'Choose another slug, or use the existing organization.',
  },
  project_exists: {
    status: 409,
    title: 'Project exists',
    meaning: 'On the operator API: the organization already has a project with this slug.',
    action: 'Choose another slug, or use the existing project.',
  },
  github_installation_taken: {
    status: 409,
    title: 'GitHub installation taken',
    meaning:
      'The installation of the GitHub App is linked to another organization (`organization` names it): an installation belongs to one organization.',
    action: 'Unlink it from that organization first, or install the app on another GitHub account for this one.',
  },
  repository_taken: {
    status: 409,
    title: 'Repository taken',
    meaning:
      'Another project of the hub already names this GitHub repository (compared without regard to case); `projectSlug` and `organization` say which. A repository belongs to one project.',
    action: "Clear that project's repository first (`repository: null`), or name another repository.",
  },
  daemon_name_taken: {
    status: 409,
    title: 'Daemon name taken',
    meaning: 'An active daemon of the organization already has the name this enrollment asks for.',
    action: "Enroll under another name, or send `replace: true` to retire the old daemon's identity and take its name.",
  },
  trigger_disabled: {
    status: 409,
    title: 'Trigger disabled',
    meaning: 'The trigger exists but is disabled (`enabled: false`), so it starts no runs.',
    action: 'Enable the trigger and install it again, or dispatch another trigger.',
  },
  version_not_current: {
    status: 409,
    title: 'Version not current',
    meaning:
      'The dispatch named an `expectedVersionId`, but the trigger was found in another revision; `activeVersionId` is the active one.',
    action:
      'Review what changed in `activeVersionId`, then dispatch again with it as `expectedVersionId`, or without one.',
  },
  daemon_offline: {
    status: 409,
    title: 'Daemon offline',
    meaning:
      "The daemon that runs the trigger's first step is not enrolled, or has had no heartbeat nor waiting long-poll within the last 30 s. No run was started.",
    action:
      'Start the daemon (or enroll it under the name the configuration uses), then dispatch again once it is online.',
  },
  delivery_key_reused: {
    status: 409,
    title: 'Delivery key reused',
    meaning: 'The `deliveryKey` was already used in this organization for a different dispatch request.',
    action:
      'Use a new delivery key for a new run. Resending the first request unchanged answers 200 with its run and `Idempotent-Replayed: true`.',
  },
  execution_finished: {
    status: 409,
    title: 'Execution finished',
    meaning: 'A daemon reported on an execution that has already finished; `executionStatus` is its final status.',
    action: 'Stop reporting on this execution: its status no longer changes.',
  },
  run_finished: {
    status: 409,
    title: 'Run finished',
    meaning: 'A cancellation was asked for a run that has already ended; `runStatus` says how it ended.',
    action: 'Nothing to do: the run no longer runs. Dispatch it again if it should run.',
  },
  payload_too_large: {
    status: 413,
    title: 'Payload too large',
    meaning:
      "The request body is larger than this operation accepts: 16 MiB for configurations and triggers, 16 KiB for a daemon's enrollment, 4 KiB for the OAuth forms (each operation's request body says). A body announced larger is refused before any of it is read.",
    action: 'Send a smaller body: fewer or smaller partials or files.',
  },
  unsupported_media_type: {
    status: 415,
    title: 'Unsupported media type',
    meaning:
      'The request has a body that is not declared as JSON, or is JSON in another charset or encoding than UTF-8.',
    action: 'Send the body as UTF-8 JSON with `Content-Type: application/json`.',
  },
  invalid_configuration: {
    status: 422,
    title: 'Invalid configuration',
    meaning:
      'The configuration was read but its content is not valid: YAML, schema, paths, partials, limits, or daemons and agents the organization lacks. `issues` lists every compiler issue with its `pointer`, `code`, `file`, `line` and `column`.',
    action:
      'Fix each issue at its file, line and column (`hub validate` finds them locally), then install again; nothing was installed.',
  },
  invalid_trigger: {
    status: 422,
    title: 'Invalid trigger',
    meaning:
      'The trigger document was read but its content is not valid, or it names daemons or agents the organization lacks. `issues` lists every compiler issue with its `pointer`, `code`, `line` and `column`.',
    action: 'Fix each issue at its line and column, then validate or install the trigger again; nothing was installed.',
  },
  invalid_repository: {
    status: 422,
    title: 'Invalid repository',
    meaning:
      "The `repository` is not a GitHub repository's `owner/name`: an owner of 1 to 39 letters, digits and hyphens, a `/`, and a name of 1 to 100 letters, digits, `.`, `_` and `-`. `issues` has one `repository.format` issue.",
    action: 'Send the repository as GitHub writes it in its address (`octo-org/hello-world`), or null for none.',
  },
  invalid_webhook_destination: {
    status: 422,
    title: 'Invalid webhook destination',
    meaning:
      'The webhook URL is not one the hub sends to: it is not `https://`, or its host is (or resolves to) a private, loopback, link-local or otherwise non-public address, which would let a webhook reach inside the network the hub runs in. `issues` has one `webhook.destination` issue saying which.',
    action:
      "Use an `https://` URL of a host reachable on the internet. For a receiver on a private network, the hub's operator can start the hub with `HUB_WEBHOOK_ALLOW_PRIVATE=true`.",
  },
  webhook_endpoint_not_found: {
    status: 404,
    title: 'Webhook endpoint not found',
    meaning: 'The organization has no webhook endpoint with the id in the path (it may have been deleted).',
    action: 'List the endpoints (`GET /api/v1/webhook-endpoints`) for their ids.',
  },
  webhook_delivery_not_found: {
    status: 404,
    title: 'Webhook delivery not found',
    meaning:
      'The endpoint has no delivery with the id in the path: deliveries are kept 30 days, and deleting an endpoint deletes its deliveries.',
    action: "List the endpoint's deliveries for their ids.",
  },
  webhook_endpoint_disabled: {
    status: 409,
    title: 'Webhook endpoint disabled',
    meaning:
      'The endpoint is disabled (after 5 days of failed deliveries and none delivered): the hub sends nothing to it, resends included.',
    action: 'Fix the receiver, enable the endpoint again, then resend.',
  },
  too_many_requests: {
    status: 429,
    title: 'Too many requests',
    meaning:
      'Too many failed attempts came from this client address (or named this key prefix) within the window: wrong or revoked credentials, bad enrollment tokens, or too many device logins started. A valid credential is always served; only failures are counted. `Retry-After` says when to try again, and `RateLimit` and `RateLimit-Policy` describe the limit.',
    action:
      'Wait the `Retry-After` seconds, then send a valid credential. If a script keeps sending an old or revoked key, fix the script: its failures throttle every client behind the same address.',
  },
  internal_error: {
    status: 500,
    title: 'Internal server error',
    meaning:
      "Something unexpected failed on the hub. The answer says nothing more; `requestId` identifies the failure in the hub's logs.",
    action:
      "Try again later; if it persists, give the hub's operator the `requestId` (also in the `X-Request-Id` header).",
  },
  not_ready: {
    status: 503,
    title: 'Not ready',
    meaning:
      'The hub is running but cannot serve: it is still starting, or its database does not answer (`GET /readyz`).',
    action:
      "Retry in a moment (a starting hub says when, in `Retry-After`) or send traffic to another instance; if it persists, the operator checks the hub's log and its PostgreSQL.",
  },
  database_unavailable: {
    status: 503,
    title: 'Database unavailable',
    meaning:
      'The hub cannot reach its PostgreSQL, or a statement did not finish in time. Nothing of the request was stored unless its answer said so; `Retry-After` says when to try again.',
    action:
      "Retry after `Retry-After` seconds: an install is stored whole or not at all, and a dispatch with the same `deliveryKey` is never run twice. If it persists, the operator checks the hub's PostgreSQL (`GET /readyz`).",
  },
  server_busy: {
    status: 503,
    title: 'Server busy',
    meaning:
      'The hub is compiling as many large configurations as it can hold, or the compile of this one ran out of its memory ceiling; nothing was stored. `Retry-After` says when to try again.',
    action:
      'Retry after `Retry-After` seconds. If a single configuration always gets this answer, it needs more memory than the hub allows one compile: split it, or ask the operator to raise `HUB_COMPILE_MEMORY_MB`.',
  },
} as const satisfies Record<string, ProblemEntry>;

export type ProblemCode = keyof typeof problemCatalog;

export function isProblemCode(code: string): code is ProblemCode {
  return Object.hasOwn(problemCatalog, code);
}
