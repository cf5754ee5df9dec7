import { CliError } from './errors.js';

/** `{default_hub_url}` of DECISIONS.md, Names: the embedded single-node hub. */
export const DEFAULT_ORIGIN = 'http://localhost:8080';

/**
 * A hub's origin as stored and compared: scheme, lowercase host and port only (the default port
 * dropped), so that `HTTP://Hub.example:443/` and `https://hub.example` name one identity.
 * Anything but an http(s) origin is refused: the API lives at fixed paths under it, and a path,
 * query or credentials here would be silently ignored.
 */
export function normalizeOrigin(input: string): string {
  const text = input.trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CliError(
      `"${input}" is not a hub URL: give one such as https://hub.example.com or http://localhost:8080.`,
      2,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CliError(`"${input}" is not a hub URL: it must start with http:// or https://.`, 2);
  }
  if (url.username !== '' || url.password !== '') {
    throw new CliError(`"${url.origin}": a hub URL carries no user name or password.`, 2);
  }
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '') {
    throw new CliError(`"${input}" has a path, query or fragment; give the hub's origin only: ${url.origin}`, 2);
  }
  return url.origin;
}

/** The origin argument, else HUB_URL, normalized; `undefined` when neither is given. */
export function explicitOrigin(
  argument: string | undefined,
  env: Record<string, string | undefined>,
): string | undefined {
  const given = argument ?? (env.HUB_URL || undefined);
  return given === undefined ? undefined : normalizeOrigin(given);
}
