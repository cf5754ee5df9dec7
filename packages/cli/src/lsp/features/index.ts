// Completion and hover for `hub lsp`, as pure functions of (document, position): no I/O and no
// LSP connection here (STYLE.md 19); the server in ../ wires them to the protocol.
import type { CompletionItem, Hover, Position } from 'vscode-languageserver';

export type DocumentKind = 'configuration' | 'trigger' | 'legacy-hub' | 'legacy-workflow' | 'partial';

export interface FeatureContext {
  kind: DocumentKind;
  /** The document's current text (the unsaved buffer). */
  text: string;
  /** Partial paths that `include:` may name, relative to the partials directory, '/' separated, sorted. */
  partials: string[];
  /** A partial's text (open buffer over disk), by a path of `partials`. */
  readPartial(path: string): string | undefined;
  /** For 'legacy-workflow': the text of .hub/hub.yml (environments, agents). */
  hubYaml?: string;
}

/** Where a client should ask again without waiting for a word: after a key's colon, a space, a dot of `inputs.`, a path's slash. */
export const TRIGGER_CHARACTERS: string[] = [':', ' ', '.', '/', '-', '{'];

export function complete(_context: FeatureContext, _position: Position): CompletionItem[] {
  return [];
}

export function hover(_context: FeatureContext, _position: Position): Hover | null {
  return null;
}
