import type { IssueCollector } from '../issues/collect.js';
import type { Limits } from '../limits/limits.js';
import type { PartialEntry } from '../model/draft.js';
import { findLoneSurrogate, SourceText, utf8Length } from '../source/text.js';
import { checkPath, foldPath } from './check-path.js';

export interface FileInput {
  path: string;
  content: string;
  /** Pointer to the entry in the request: /partials/3 or /files/3. */
  pointer: string;
}

/**
 * Checks a set of request files as DECISIONS.md's Paths section says: each path canonical, no
 * two the same after NFC and case folding, each content well-formed. Returns the files that
 * passed, first of each duplicate kept.
 */
export function intakeFiles(
  files: FileInput[],
  limits: Limits,
  issues: IssueCollector,
  duplicateCode: 'partial.duplicate' | 'bundle.duplicate',
): PartialEntry[] {
  const kept: PartialEntry[] = [];
  const seen = new Map<string, FileInput>();
  for (const file of files) {
    const checked = checkPath(file.path, limits);
    if (!checked.ok) {
      issues.add(checked.code, checked.message, `${file.pointer}/path`, { file: file.path });
      continue;
    }
    const folded = foldPath(file.path);
    const first = seen.get(folded);
    if (first !== undefined) {
      issues.add(
        duplicateCode,
        `The path "${file.path}" is the same file as "${first.path}" at ${first.pointer} (after NFC and case folding).`,
        `${file.pointer}/path`,
        { file: file.path },
      );
      continue;
    }
    seen.set(folded, file);
    const source = new SourceText(file.content);
    const lone = findLoneSurrogate(file.content);
    if (lone >= 0) {
      issues.add(
        'text.malformed_unicode',
        'The content is not well-formed Unicode: it has a lone surrogate.',
        `${file.pointer}/content`,
        {
          file: file.path,
          source,
          offset: lone,
        },
      );
      continue;
    }
    kept.push({ path: file.path, pointer: file.pointer, content: file.content, source });
  }
  return kept;
}

/**
 * Byte limits of prompt partials (specification section 8), each with the measured size, and
 * what the hub cannot store: partials are not YAML, so nothing else refuses a NUL in them.
 */
export function checkPartials(
  partials: PartialEntry[],
  limits: Limits,
  issues: IssueCollector,
  listPointer: string,
): void {
  let total = 0;
  for (const partial of partials) {
    const nul = partial.content.indexOf('\u0000');
    if (nul >= 0) {
      issues.add(
        'text.nul_character',
        'The content holds the NUL character (U+0000); remove it: the hub stores text, which cannot hold NUL.',
        `${partial.pointer}/content`,
        {
          file: partial.path,
          source: partial.source,
          offset: nul,
        },
      );
    }
    const bytes = utf8Length(partial.content);
    total += bytes;
    if (bytes > limits.maxPartialBytes) {
      issues.add(
        'limit.partial_bytes',
        `The partial is ${bytes} bytes; the limit is ${limits.maxPartialBytes}.`,
        `${partial.pointer}/content`,
        { file: partial.path },
      );
    }
  }
  if (total > limits.maxPartialsTotalBytes) {
    issues.add(
      'limit.partials_total_bytes',
      `The partials are ${total} bytes together; the limit is ${limits.maxPartialsTotalBytes}.`,
      listPointer,
    );
  }
}
