// `hub login`: the OAuth 2.0 device authorization grant (RFC 8628) and the CLI credentials it
// makes. The OAuth endpoints (routes.ts) and the dashboard's verification page (dashboard.ts)
// share the use cases of device-flow.ts and credentials.ts.
export {
  CLI_CLIENT_ID,
  DEFAULT_DEVICE_LOGIN,
  decideDevice,
  lookUpDevice,
  pollDeviceAuthorization,
  startDeviceAuthorization,
  USER_CODE_GUESSES,
  type DeviceDecision,
  type DeviceThrottled,
  type DeviceLoginTiming,
  type DeviceLookup,
  type PollOutcome,
  type StartedDeviceAuthorization,
} from './device-flow.js';
export { cliCredentials, revokeCliCredential, revokeCliToken } from './credentials.js';
export { DEVICE_CODE_GRANT, oauthHandlers, VERIFICATION_PATH } from './routes.js';
export { cliLoginStore } from './dashboard.js';
