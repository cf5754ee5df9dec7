// @hub/cli's public surface; the reference daemon's is @hub/daemon's.
export { normalizeOrigin } from './origin.js';
