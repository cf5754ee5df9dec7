// Quick fixes for "did you mean": the compiler ends its suggestion with `; did you mean "X"?`
// (packages/compiler/src/issues/suggest.ts, didYouMean), and the diagnostic covers the token it
// is about, so the fix replaces that token with X, keeping its quotes or placeholder braces.
import { CodeActionKind, type CodeAction, type Diagnostic, type TextEdit } from 'vscode-languageserver';

const SUGGESTION = /; did you mean "(.*?)"\?(?=\s|$)/;

/** The name a compiler message suggests, if it suggests one. */
export function suggestionOf(message: string): string | undefined {
  return SUGGESTION.exec(message)?.[1];
}

/** "Change to X" for each of `diagnostics` (ours) whose message suggests X; `text` is the document's. */
export function quickFixes(uri: string, text: string, diagnostics: Diagnostic[]): CodeAction[] {
  const actions: CodeAction[] = [];
  for (const diagnostic of diagnostics) {
    if (diagnostic.source !== 'hub' || typeof diagnostic.message !== 'string') continue;
    const suggestion = suggestionOf(diagnostic.message);
    // An issue without a position (shown at the file's start) covers no token to replace.
    if (suggestion === undefined || isEmpty(diagnostic.range)) continue;
    const edit: TextEdit = { range: diagnostic.range, newText: replacement(tokenText(text, diagnostic), suggestion) };
    actions.push({
      title: `Change to ${suggestion}`,
      kind: CodeActionKind.QuickFix,
      diagnostics: [diagnostic],
      isPreferred: true,
      edit: { changes: { [uri]: [edit] } },
    });
  }
  return actions;
}

/** The text a one-line range covers. */
function tokenText(text: string, diagnostic: Diagnostic): string {
  const { start, end } = diagnostic.range;
  const line = text.split(/\r\n|\r|\n/)[start.line] ?? '';
  return start.line === end.line ? line.slice(start.character, end.character) : line.slice(start.character);
}

function isEmpty({ start, end }: Diagnostic['range']): boolean {
  return start.line === end.line && start.character === end.character;
}

/** `{{ name }}`: a placeholder's braces and spaces around its name. */
const PLACEHOLDER = /^(\{\{\s*)(.*?)(\s*\}\})$/;

/** `suggestion` written as the token was: inside the same placeholder braces, in the same quotes (escaped for them), or plain. */
function replacement(token: string, suggestion: string): string {
  const placeholder = PLACEHOLDER.exec(token);
  if (placeholder !== null) return `${placeholder[1]}${suggestion}${placeholder[3]}`;
  const quote = token[0];
  if (token.length < 2 || token.at(-1) !== quote) return suggestion;
  if (quote === '"') return `"${suggestion.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
  if (quote === "'") return `'${suggestion.replace(/'/g, "''")}'`;
  return suggestion;
}
