// The markdown that completion items and hovers show.
import type { MarkupContent } from 'vscode-languageserver';
import { describe, typeLine, type Field } from './schema.js';

export const PROMPT_DOC = "The dispatch's input text, after the leading key=value tokens that set inputs.";

export function markdown(value: string): MarkupContent {
  return { kind: 'markdown', value };
}

/** A field's description, then its type. */
export function fieldDoc(field: Field): MarkupContent | undefined {
  const parts = [describe(field), typeLine(field)].filter((part): part is string => part !== undefined);
  return parts.length === 0 ? undefined : markdown(parts.join('\n\n'));
}
