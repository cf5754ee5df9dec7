// Imported by main.ts before anything else: the hub's start-up keeps V8's young generation at its
// initial size, and lets it grow again once the hub is listening.
import { setFlagsFromString } from 'node:v8';

/**
 * V8 doubles the young generation (up to 16 MB a semi-space, 32 MB in all) whenever many objects
 * survive a scavenge, as they do while modules load, the contract's schemas compile and
 * migrations run. Left to grow there, an idle hub keeps that space, about 35 MB of its RSS, for
 * nothing: V8 rarely shrinks it. Growth is held off (factor 1) until `started()`, then V8's
 * default (2) applies again, so a busy hub grows it as before. Nothing changes when node was
 * started with its own --semi-space-growth-factor. See docs/decisions.md.
 */
const DEFAULT_GROWTH_FACTOR = 2;
const given = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((arg) =>
  arg.includes('semi-space-growth-factor'),
);

if (!given) setFlagsFromString('--semi-space-growth-factor=1');

/** The hub is up: the young generation may grow again. */
export function started(): void {
  if (!given) setFlagsFromString(`--semi-space-growth-factor=${DEFAULT_GROWTH_FACTOR}`);
}
