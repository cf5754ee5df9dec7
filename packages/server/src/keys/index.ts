// API keys and what every bearer credential is: the operator API's keys, the dashboard's keys
// page, `GET /api/v1/credential`, and the revocation that installs race against.
export {
  createKey,
  credential,
  listKeys,
  revokeKey,
  type CreatedKey,
  type KeyCreation,
  type KeyRevocation,
} from './service.js';
export { ApiKeyRepository, type ApiKeyListing, type CliCredentialRecord, type CredentialRecord } from './sql.js';
export { keyStillValid, unlessRevoked } from './install-guard.js';
export { operatorKeyHandlers } from './operator-routes.js';
export { credentialHandlers } from './credential-routes.js';
export { keyStore } from './dashboard.js';
