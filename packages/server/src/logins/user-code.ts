import { randomInt } from 'node:crypto';
import { USER_CODE_ALPHABET, USER_CODE_LENGTH } from '@hub/schemas';

/** A new user code as stored: eight letters of RFC 8628's alphabet (@hub/schemas), no hyphen. */
export function newUserCode(): string {
  let code = '';
  for (let i = 0; i < USER_CODE_LENGTH; i++) code += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return code;
}
