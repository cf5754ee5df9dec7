// When `hub login` opens the verification page: only for a person at a terminal with a display.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { canShowBrowser } from '../src/browser.js';

const io = (tty: boolean, env: Record<string, string> = {}) => {
  const stdout = Object.assign(new PassThrough(), tty ? { isTTY: true } : {});
  return {
    env,
    stdin: new PassThrough(),
    stdout,
    stderr: new PassThrough(),
    stopSignal: () => new AbortController().signal,
  };
};

describe('canShowBrowser', () => {
  it.each([
    ['Linux with DISPLAY', true, { DISPLAY: ':0' }, 'linux', true],
    ['Linux with WAYLAND_DISPLAY', true, { WAYLAND_DISPLAY: 'wayland-0' }, 'linux', true],
    ['Linux without a display (SSH, a container)', true, {}, 'linux', false],
    ['Linux with an empty DISPLAY', true, { DISPLAY: '' }, 'linux', false],
    ['FreeBSD without a display', true, {}, 'freebsd', false],
    ['macOS', true, {}, 'darwin', true],
    ['Windows', true, {}, 'win32', true],
    ['standard output not a terminal (a pipe, CI)', false, { DISPLAY: ':0' }, 'linux', false],
    ['macOS, standard output not a terminal', false, {}, 'darwin', false],
  ] as const)('%s: %s', (_, tty, env, platform, expected) => {
    expect(canShowBrowser(io(tty, env), platform)).toBe(expected);
  });
});
