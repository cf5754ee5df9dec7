// Agents' output as the page shows it: text, never markup (preact escapes it), without the
// terminal's control sequences. Colours are stripped rather than kept: the page's policy forbids
// inline styles, and the plain-text link keeps the bytes as the agent wrote them.

/** CSI (colours, cursor moves), OSC (titles, links; ended by BEL or ST) and the other two-byte escapes. */
const ESCAPES = /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)|[@-Z\\-_])/g;
/** Other control characters but tab and newline; a carriage return before a newline is a Windows line end. */
const CONTROLS = /\r(?=\n)|[\u0000-\u0008\u000b-\u001f\u007f]/g;

export function plainText(text: string): string {
  return text.replace(ESCAPES, '').replace(CONTROLS, '');
}
