import { createRequire } from 'node:module';

/** This hub's release: the server package's version (recorded with each migration it applies). */
export const RELEASE = (createRequire(import.meta.url)('../package.json') as { version: string }).version;
