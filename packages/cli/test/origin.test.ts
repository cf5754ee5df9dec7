import { describe, expect, it } from 'vitest';
import { normalizeOrigin } from '../src/index.js';

describe('normalizeOrigin', () => {
  it.each([
    ['http://localhost:8080', 'http://localhost:8080'],
    ['http://localhost:8080/', 'http://localhost:8080'],
    ['  HTTPS://Hub.Example.COM/  ', 'https://hub.example.com'],
    ['https://hub.example.com:443', 'https://hub.example.com'],
    ['http://hub.example.com:80/', 'http://hub.example.com'],
    ['https://hub.example.com:8443', 'https://hub.example.com:8443'],
    ['http://127.0.0.1:8080', 'http://127.0.0.1:8080'],
    ['http://[::1]:8080/', 'http://[::1]:8080'],
    ['https://bücher.example', 'https://xn--bcher-kva.example'],
  ])('%s is %s', (input, origin) => {
    expect(normalizeOrigin(input)).toBe(origin);
  });

  it.each([
    ['ftp://hub.example.com', /must start with http:\/\/ or https:\/\//],
    ['hub.example.com', /not a hub URL/],
    ['localhost:8080', /must start with http:\/\/ or https:\/\//],
    ['', /not a hub URL/],
    ['https://user:secret@hub.example.com', /no user name or password/],
    ['http://localhost:8080/api/reference', /give the hub's origin only: http:\/\/localhost:8080$/],
    ['http://localhost:8080/?x=1', /path, query or fragment/],
    ['http://localhost:8080/#top', /path, query or fragment/],
  ])('refuses %j', (input, message) => {
    expect(() => normalizeOrigin(input)).toThrow(message);
  });

  it('refuses with a usage exit code, and never repeats a password', () => {
    expect(() => normalizeOrigin('ftp://x')).toThrow(expect.objectContaining({ exitCode: 2 }));
    expect(() => normalizeOrigin('https://user:hunter2@hub.example.com')).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('hunter2') }),
    );
  });
});
