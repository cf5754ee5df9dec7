// The contract between the language server (../) and its features: plain data in, plain LSP
// values out. index.ts re-exports it.

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
  /** The clock, for a schedule's next fire times in a hover; none are shown without it. */
  now?: Date;
}
