/**
 * Every limit the compiler enforces, as a named option (specification section 8, plus the
 * YAML resource bounds of DECISIONS.md). "Characters" are Unicode code points and "bytes"
 * are UTF-8 bytes. Each is checked before the work it protects.
 */
export interface Limits {
  /** Characters of a configuration (A) or trigger (B) YAML. Specification: 1,000,000. */
  maxYamlLength: number;
  /** Partial entries of a configuration (A). Specification: 100. */
  maxPartials: number;
  /** Characters of a partial or bundle file path. Specification: 512. */
  maxPathLength: number;
  /** UTF-8 bytes of one partial (A) or one prompt partial of a bundle (B). Specification: 1,000,000. */
  maxPartialBytes: number;
  /** UTF-8 bytes of all partials together. Specification: 5,000,000. */
  maxPartialsTotalBytes: number;
  /** Files in a legacy bundle (B). Specification: 100. */
  maxBundleFiles: number;
  /** Characters of one legacy bundle file (B). Specification: 1,000,000. */
  maxFileLength: number;
  /** Nesting levels of a YAML document, after aliases are expanded. At most 1,000. */
  maxDepth: number;
  /**
   * Nodes that aliases may expand to, in all, in one document: bounds alias bombs (at most
   * 10,000,000). The text aliases expand to is bounded by maxYamlLength characters as well.
   */
  maxAliasExpansion: number;
  /** Issues returned at most; a final issues.truncated entry says how many more there were. */
  maxIssues: number;
}

export const defaultLimits: Readonly<Limits> = Object.freeze({
  maxYamlLength: 1_000_000,
  maxPartials: 100,
  maxPathLength: 512,
  maxPartialBytes: 1_000_000,
  maxPartialsTotalBytes: 5_000_000,
  maxBundleFiles: 100,
  maxFileLength: 1_000_000,
  maxDepth: 64,
  maxAliasExpansion: 10_000,
  maxIssues: 100,
});

export interface CompileOptions {
  limits?: Partial<Limits>;
  /**
   * Paths of partials that exist where the input's partials come from but are not in the input
   * (a repository's whole .hub/partials/, when only the included files are sent), written as the
   * input writes its partial paths. Only "did you mean" reads them; the hub passes none.
   */
  partialNames?: readonly string[];
}

/** The partial names an option gives, strings only (options are not trusted to be typed). */
export function partialNamesOf(options: CompileOptions | undefined): string[] {
  const names = isRecord(options) ? options.partialNames : undefined;
  return Array.isArray(names) ? names.filter((name): name is string => typeof name === 'string') : [];
}

/**
 * Ceilings no option may raise a limit past: deeper nesting would overflow the stack, and more
 * alias expansion the memory, where the compiler promises an issue instead.
 */
const CEILINGS: Partial<Record<keyof Limits, number>> = { maxDepth: 1_000, maxAliasExpansion: 10_000_000 };

export function resolveLimits(options: CompileOptions | undefined): Limits {
  const limits = { ...defaultLimits };
  const given = isRecord(options) && isRecord(options.limits) ? options.limits : {};
  for (const key of Object.keys(defaultLimits) as (keyof Limits)[]) {
    const value = given[key];
    if (typeof value === 'number' && Number.isInteger(value) && value >= 0)
      limits[key] = Math.min(value, CEILINGS[key] ?? value);
  }
  return limits;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
