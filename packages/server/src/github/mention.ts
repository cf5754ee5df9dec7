// The mention grammar (DECISIONS.md, GitHub): the first `@<slug>` in the text, as a whole word and
// in any case; the next word is the trigger's name; the rest is the input text.

export interface Mention {
  /** The word after the mention; empty when nothing follows it. */
  trigger: string;
  /** The rest, parsed like a dispatch's `input`: leading blanks and the line break after the name dropped. */
  input: string;
}

/**
 * The mention in `text`, or undefined when the app is not mentioned. Quoted lines (`> …`, as a
 * reply quotes an earlier comment) and fenced code blocks are not read, so that quoting a comment
 * that mentioned the app, or showing how to mention it, starts nothing.
 */
export function findMention(text: string, slug: string): Mention | undefined {
  const readable = unquoted(text);
  const at = new RegExp(`(^|[^A-Za-z0-9_@/.-])@${escape(slug)}(?![A-Za-z0-9_-])`, 'i').exec(readable);
  if (at === null) return undefined;
  const after = readable.slice(at.index + at[0].length);
  const name = /^[ \t]*([^\s]*)/.exec(after) as RegExpExecArray;
  const rest = after.slice(name[0].length);
  // A sentence's punctuation is not part of the name: `@hub fix-tests.` names fix-tests.
  return { trigger: (name[1] ?? '').replace(/[.,:;!?)]+$/, ''), input: rest.replace(/^[ \t]*(\r?\n)?/, '').trimEnd() };
}

/** `text` with quoted lines and fenced code blocks blanked (line breaks kept). */
function unquoted(text: string): string {
  let fence: string | undefined;
  return text
    .split('\n')
    .map((line) => {
      const opener = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
      if (fence !== undefined) {
        if (opener !== undefined && opener[0] === fence[0] && opener.length >= fence.length) fence = undefined;
        return '';
      }
      if (opener !== undefined) {
        fence = opener;
        return '';
      }
      return /^ {0,3}>/.test(line) ? '' : line;
    })
    .join('\n');
}

const escape = (value: string) => value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
