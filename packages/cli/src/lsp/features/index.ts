// Completion and hover for `hub lsp`, as pure functions of (document, position): no I/O and no
// LSP connection here (STYLE.md 19); the server in ../ wires them to the protocol. Both run on
// every keystroke and on broken YAML, so neither throws: a failure is no answer.
import type { CompletionItem, Hover, Position } from 'vscode-languageserver';
import { completeAt } from './complete.js';
import { hoverAt } from './hover.js';
import type { FeatureContext } from './types.js';

export type { DocumentKind, FeatureContext } from './types.js';

/** Where a client should ask without waiting for a word: after a key's colon, a space, the dot of `inputs.`, a path's slash, a flow mapping's brace. */
export const TRIGGER_CHARACTERS: string[] = [':', ' ', '.', '/', '{'];

export function complete(context: FeatureContext, position: Position): CompletionItem[] {
  try {
    return completeAt(context, position);
  } catch {
    return [];
  }
}

export function hover(context: FeatureContext, position: Position): Hover | null {
  try {
    return hoverAt(context, position);
  } catch {
    return null;
  }
}
