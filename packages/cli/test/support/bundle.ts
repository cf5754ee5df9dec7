// vitest's global setup: the CLI tests run `hub` as users get it, the bundle (dist/bundle/hub.js,
// package.json "bin"), so it is rebuilt first when it is older than the build it is made of
// (`pnpm test` runs `tsc -b` before vitest; `pnpm build` bundles too). Without a build there is
// nothing to bundle, and the CLI tests say so.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('../../scripts/bundle.js', import.meta.url));
const BUILT = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

export default function setup(): void {
  if (!existsSync(BUILT)) return;
  const result = spawnSync(process.execPath, [SCRIPT, '--if-stale'], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0) throw new Error(`node ${SCRIPT} --if-stale failed (exit ${result.status ?? result.signal})`);
}
