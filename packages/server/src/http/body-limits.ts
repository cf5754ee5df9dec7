// What each operation may read: its largest body, refused with 413 beyond it (http/mount.ts applies it).
import type { OperationSpec } from '../openapi/contract.js';

const KiB = 1024;
const MiB = 1024 * KiB;

/**
 * The largest body each operation that takes one reads, in bytes; a larger one is refused with
 * 413 before any of it is parsed (and, announced by Content-Length, before any of it is read).
 * Every operation with a body must be here: the hub refuses to start otherwise. See
 * docs/decisions.md, "Bodies and compiles under abuse", for how each figure was reached.
 */
const BODY_LIMITS: Record<string, number | 'largest'> = {
  // Without a credential, or read before it is checked: a few KB. The largest enrollment the
  // reference daemon sends is well under 4 KB; a token can be 4,096 characters.
  enrollDaemon: 16 * KiB,
  // The OAuth forms: a client id, a scope list of at most 512 characters, a host name of at most
  // 255 (up to 9 bytes each percent-encoded), or a device code or a token.
  requestDeviceAuthorization: 4 * KiB,
  requestToken: 4 * KiB,
  revokeToken: 4 * KiB,
  // Signed daemon requests (their body is read before the signature can be checked): a runtime
  // list like enrollment's, a status with a message of at most 4,000 characters, nothing.
  daemonHeartbeat: 64 * KiB,
  reportExecutionStatus: 64 * KiB,
  daemonOffline: 64 * KiB,
  // A batch of output: the daemon sends at most 64 KiB of text in at most 1,000 chunks; as JSON,
  // with every character escaped (\u001b is 6 bytes) and each chunk's seq, stream and time, < 1 MiB.
  appendExecutionOutput: MiB,
  // A GitHub delivery of the events the hub reads: a comment and an issue or pull request body are
  // at most 65,536 characters each (up to 4 bytes in UTF-8), with the repository and people around them.
  receiveGitHubWebhook: 2 * MiB,
  // A dispatch's input is at most 1,048,576 characters (up to 3 bytes each in UTF-8), its other
  // fields 255 each. Small dispatches are read before the key check, larger ones after it (`bodyFirst`).
  dispatchManualRunA: 4 * MiB,
  dispatchManualRunB: 4 * MiB,
  // Documents: the hub's largest (HubOptions.maxBodyBytes, 16 MiB), after the key check.
  validateConfiguration: 'largest',
  installConfiguration: 'largest',
  validateTrigger: 'largest',
  installTrigger: 'largest',
  // Bodies of a few fields, after the key or operator token check.
  issueEnrollmentToken: 64 * KiB,
  cancelRun: 64 * KiB,
  createOrganization: 64 * KiB,
  createProject: 64 * KiB,
  createApiKey: 64 * KiB,
  updateProject: 64 * KiB,
  linkGitHubInstallation: 64 * KiB,
  createWebhookEndpoint: 64 * KiB,
};

/** The largest body `operation` reads; an operation with a body but no limit stops the hub. */
export function bodyLimit(operation: OperationSpec, largest: number): number {
  const limit = BODY_LIMITS[operation.operationId];
  if (limit === undefined)
    throw new Error(`${operation.operationId} takes a body but has no limit in BODY_LIMITS (http/body-limits.ts)`);
  return limit === 'largest' ? largest : Math.min(limit, largest);
}
