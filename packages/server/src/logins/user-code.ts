import { randomInt } from 'node:crypto';

/**
 * RFC 8628, section 6.1: base-20 consonants, no vowels (no words) and no look-alike digits.
 * Eight of them are 20^8 ≈ 2.6 × 10^10 codes (34.6 bits), enough for codes that live 10 minutes
 * when wrong guesses are throttled (section 5.1).
 */
export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
const LENGTH = 8;

/** A new user code as stored: eight letters, no hyphen. */
export function newUserCode(): string {
  let code = '';
  for (let i = 0; i < LENGTH; i++) code += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return code;
}

/** As people read and type it: XXXX-XXXX. */
export function displayUserCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/**
 * What a person typed, as stored: case, spaces and hyphens ignored (section 6.1 asks for that
 * leniency); undefined when it cannot be a user code at all.
 */
export function parseUserCode(input: string): string | undefined {
  const code = input.toUpperCase().replace(/[\s-]/g, '');
  return code.length === LENGTH && [...code].every((letter) => USER_CODE_ALPHABET.includes(letter)) ? code : undefined;
}
