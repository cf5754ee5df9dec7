// The user code of the device authorization grant (RFC 8628), as people type it.

/** RFC 8628, section 6.1: base-20 consonants, no vowels (no words) and no look-alike digits. */
const USER_CODE = /^[BCDFGHJKLMNPQRSTVWXZ]{8}$/;

/**
 * The code as the hub shows it, `XXXX-XXXX`, from what was typed in any case, with or without
 * the hyphen and spaces; undefined when it cannot be a code at all.
 */
export function userCodeOf(typed: string): string | undefined {
  const letters = typed.replace(/[\s-]/g, '').toUpperCase();
  return USER_CODE.test(letters) ? `${letters.slice(0, 4)}-${letters.slice(4)}` : undefined;
}
