// The files the language server reads: the editor's open buffers over the disk (an unsaved
// buffer wins), within the repository as discovery judges it (a path that leads outside its
// repository, or nowhere, is never read). A file that cannot be read counts as absent.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import { boundaryOf, refusalOf, type Refusal } from '../boundary.js';
import { MAX_PARTIAL_DEPTH } from '../discovery-files.js';

export class Files {
  /** Open documents' texts by absolute path. */
  readonly buffers = new Map<string, string>();

  /**
   * Why `path` is not read, as discovery refuses it: it leads outside its repository (the
   * directory its `.hub` is in) or nowhere. Undefined for a path under no `.hub`.
   */
  refusal(path: string): Refusal | undefined {
    const parts = path.split(sep);
    const at = parts.lastIndexOf('.hub', parts.length - 1);
    if (at < 0) return undefined;
    return refusalOf(path, boundaryOf(parts.slice(0, at).join(sep) || sep));
  }

  /**
   * The buffer, else the file's UTF-8 text (byte for byte, as discovery reads it); undefined if
   * absent, unreadable or refused (a buffer of a path that leads outside is not read either).
   */
  read(path: string): string | undefined {
    if (this.refusal(path) !== undefined) return undefined;
    const buffer = this.buffers.get(path);
    if (buffer !== undefined) return buffer;
    try {
      return new TextDecoder('utf-8', { ignoreBOM: true, fatal: true }).decode(readFileSync(path));
    } catch {
      return undefined;
    }
  }

  /** The names of the files directly in `dir`, on disk or open, sorted. */
  files(dir: string): string[] {
    const names = new Set<string>();
    try {
      // A symbolic link to a file counts, as discovery reads it (it stats what a name points to);
      // one that discovery refuses counts too, unstat'ed, so that the refusal is reported.
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isFile() || (entry.isSymbolicLink() && (this.refusal(path) !== undefined || this.isFile(path))))
          names.add(entry.name);
      }
    } catch {
      // A missing directory has no files.
    }
    for (const path of this.buffers.keys()) if (dirname(path) === dir) names.add(basename(path));
    return [...names].sort();
  }

  /**
   * The files under `dir` (recursively, relative, `/`-separated, sorted), on disk or open; at
   * most `max`, so that a huge directory costs a bounded walk. The walk is discovery's
   * (filesUnder): level by level, each directory's names in order, at most MAX_PARTIAL_DEPTH levels,
   * so that the compiler is offered the partial names hub validate offers it.
   */
  tree(dir: string, max = 1000): string[] {
    if (this.refusal(dir) !== undefined) return [];
    const walked: string[] = [];
    const pending: [string, number][] = [['', 0]];
    while (pending.length > 0 && walked.length < max) {
      const [prefix, depth] = pending.shift() as [string, number];
      let entries;
      try {
        entries = readdirSync(join(dir, prefix), { withFileTypes: true });
      } catch {
        continue;
      }
      for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
        const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
        if (entry.isFile()) walked.push(path);
        else if (entry.isDirectory() && depth + 1 < MAX_PARTIAL_DEPTH) pending.push([path, depth + 1]);
      }
    }
    const found = new Set(walked.slice(0, max));
    for (const path of this.buffers.keys()) {
      const inside = relative(dir, path);
      if (!inside.startsWith('..') && inside !== '' && !inside.startsWith(sep)) found.add(inside.split(sep).join('/'));
    }
    return [...found].sort();
  }

  isFile(path: string): boolean {
    if (this.refusal(path) !== undefined) return false;
    if (this.buffers.has(path)) return true;
    try {
      return statSync(path).isFile();
    } catch {
      return false;
    }
  }
}
