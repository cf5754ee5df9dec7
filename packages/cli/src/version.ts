// The CLI's version, as `hub --version` prints it: from its package.json, a copy of which the
// bundle carries beside itself (scripts/bundle.js), so the installed `hub` reads its own.
import { readFileSync } from 'node:fs';

export function cliVersion(): string {
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return version;
}
