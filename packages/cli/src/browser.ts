// Opening the verification page for `hub login`, when a person can see a browser here.
import open from 'open';
import type { Io } from './command.js';

/**
 * Not when standard output is not a terminal (a script, CI, a pipe), nor on Linux and the BSDs
 * without a graphical session: there, xdg-open would start a text browser in this terminal or fail.
 */
export function canShowBrowser(io: Io, platform: NodeJS.Platform): boolean {
  if (io.stdout.isTTY !== true) return false;
  if (platform === 'darwin' || platform === 'win32') return true;
  return Boolean(io.env.DISPLAY || io.env.WAYLAND_DISPLAY);
}

/** Opens `url` in the default browser; the reason when it could not (which is not an error: the URL is printed anyway). */
export async function openInBrowser(url: string): Promise<string | undefined> {
  try {
    await open(url);
    return undefined;
  } catch (error) {
    return error instanceof AggregateError
      ? error.errors.map((each: Error) => each.message).join('; ')
      : (error as Error).message;
  }
}
