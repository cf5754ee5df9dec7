// Quick fixes for "did you mean": an issue that suggests a replacement carries it as data
// (Issue.suggestion), which our diagnostics keep in `data` (diagnostics.ts); the diagnostic covers
// the token it is about, so the fix replaces that token with it, keeping its quotes or placeholder braces.
import { CodeActionKind, type CodeAction, type Diagnostic, type TextEdit } from 'vscode-languageserver';

/** What our diagnostics carry in `data`, which the editor hands back with a code action request. */
export interface DiagnosticData {
  suggestion?: string;
}

/** The replacement a diagnostic's data suggests, if any (the data comes back from the editor: checked). */
function suggestionOf(diagnostic: Diagnostic): string | undefined {
  const data: unknown = diagnostic.data;
  if (typeof data !== 'object' || data === null || !('suggestion' in data)) return undefined;
  return typeof data.suggestion === 'string' ? data.suggestion : undefined;
}

/** "Change to X" for each of `diagnostics` (ours) that suggests X; `text` is the document's. */
export function quickFixes(uri: string, text: string, diagnostics: Diagnostic[]): CodeAction[] {
  const actions: CodeAction[] = [];
  for (const diagnostic of diagnostics) {
    if (diagnostic.source !== 'hub') continue;
    const suggestion = suggestionOf(diagnostic);
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
