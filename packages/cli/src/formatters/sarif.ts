// `hub validate --format sarif`, pure: findings in, a SARIF 2.1.0 log out, for code scanning
// (GitHub's upload-sarif) and SARIF viewers. One run; the rules are the issue codes that occur.
import { createHash } from 'node:crypto';
import { issueCodes, type IssueCode } from '@hub/compiler';
import type { Artifact, Log, Region, ReportingDescriptor, Result } from 'sarif';
import { discoveryIssueCodes, type DiscoveryIssueCode } from '../boundary.js';
import type { Finding, Report } from '../check.js';
import { lineStarts } from '../line-starts.js';
import { ruleHelp } from './rule-help.js';

/** Where paths are relative to: SARIF's conventional name for the root of the sources. */
export const SRCROOT = '%SRCROOT%';
/** The partialFingerprints key; a new version if what it hashes changes. */
const FINGERPRINT = 'hubIssue/v1';

export interface SarifContext {
  /** The CLI's version, as `hub --version` prints it. */
  version: string;
  /** The repository root as a file URI ending in '/', for viewers that resolve %SRCROOT%. */
  rootUri?: string;
  /** Each checked file's text by its report path: columns are converted with it. */
  sources: ReadonlyMap<string, string>;
}

export function sarifReport(report: Report, context: SarifContext): string {
  const artifacts: Artifact[] = [];
  const indexes = new Map<string, number>();
  // The checked files, and any other file an issue names.
  const artifactIndex = (path: string): number => {
    let index = indexes.get(path);
    if (index === undefined) {
      index =
        artifacts.push({
          location: { uri: fileUri(path), uriBaseId: SRCROOT },
          sourceLanguage: path.endsWith('.md') ? 'markdown' : 'yaml',
        }) - 1;
      indexes.set(path, index);
    }
    return index;
  };
  for (const file of report.files) artifactIndex(file.path);

  const rules: ReportingDescriptor[] = [];
  const ruleIndex = new Map<Finding['code'], number>();
  const seen = new Map<string, number>();
  const starts = new Map<string, Lines | undefined>();
  const lines = (file: string): Lines | undefined => {
    if (!starts.has(file)) {
      const text = context.sources.get(file);
      starts.set(file, text === undefined ? undefined : { text, starts: lineStarts(text) });
    }
    return starts.get(file);
  };
  const results = report.issues.map((finding): Result => {
    let index = ruleIndex.get(finding.code);
    if (index === undefined) {
      index = rules.push(rule(finding.code, finding.severity)) - 1;
      ruleIndex.set(finding.code, index);
    }
    // Issues of one code at one pointer of one file are told apart by their order.
    const key = `${finding.code}\n${finding.file}\n${finding.pointer}`;
    const occurrence = (seen.get(key) ?? 0) + 1;
    seen.set(key, occurrence);
    const region = regionOf(finding, lines(finding.file));
    return {
      ruleId: finding.code,
      ruleIndex: index,
      level: finding.severity,
      message: { text: finding.message },
      locations: [
        {
          physicalLocation: {
            artifactLocation: { uri: fileUri(finding.file), uriBaseId: SRCROOT, index: artifactIndex(finding.file) },
            ...(region === undefined ? {} : { region }),
          },
        },
      ],
      partialFingerprints: {
        [FINGERPRINT]: `${createHash('sha256').update(key).digest('hex').slice(0, 32)}:${occurrence}`,
      },
      properties: { pointer: finding.pointer },
    };
  });

  const log: Log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'hub', version: context.version, semanticVersion: context.version, rules } },
        ...(context.rootUri === undefined ? {} : { originalUriBaseIds: { [SRCROOT]: { uri: context.rootUri } } }),
        artifacts,
        // The compiler counts code points; results count UTF-16 code units (as editors and LSP do), said explicitly.
        columnKind: 'utf16CodeUnits',
        results,
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}

/** A rule for an issue code: the catalog's one line, and the code's section of docs/issue-codes.md. */
function rule(code: Finding['code'], severity: Finding['severity']): ReportingDescriptor {
  const section = ruleHelp[code];
  const short = code in issueCodes ? issueCodes[code as IssueCode] : discoveryIssueCodes[code as DiscoveryIssueCode];
  const first = section === undefined ? undefined : firstParagraph(section);
  return {
    id: code,
    shortDescription: { text: short },
    fullDescription: first === undefined ? { text: short } : { text: plain(first), markdown: first },
    help: section === undefined ? { text: short } : { text: plainSection(section), markdown: section },
    defaultConfiguration: { level: severity },
  };
}

/** The section's opening prose, up to a blank line or an example; none if it opens with an example. */
function firstParagraph(markdown: string): string | undefined {
  const first = (markdown.split(/\n{2,}/)[0] ?? '').split(/^```/m)[0]?.trim();
  return first === undefined || first === '' ? undefined : first;
}

/** Prose as plain text: inline code without its backticks, one line. */
function plain(markdown: string): string {
  return markdown.replace(/`([^`\n]+)`/g, '$1').replace(/\s*\n\s*/g, ' ');
}

/** A section as plain text: examples indented by four spaces instead of fenced, no backticks in prose. */
function plainSection(markdown: string): string {
  let fenced = false;
  const lines: string[] = [];
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    else lines.push(fenced ? `    ${line}` : line.replace(/`([^`]+)`/g, '$1'));
  }
  return lines.join('\n');
}

/** A repository-relative path as a relative URI reference: each segment percent-encoded ('a b' → 'a%20b'). */
function fileUri(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

/** A file's text and the offsets where its lines start. */
interface Lines {
  text: string;
  starts: number[];
}

function regionOf(finding: Finding, lines: Lines | undefined): Region | undefined {
  if (finding.line === undefined) return undefined;
  if (finding.column === undefined) return { startLine: finding.line };
  return {
    startLine: finding.line,
    startColumn: lines === undefined ? finding.column : utf16Column(lines, finding.line, finding.column),
  };
}

/**
 * The compiler's 1-based code-point column as a 1-based UTF-16 column: a character outside the
 * BMP (an emoji) before it counts twice. A byte order mark is not part of line 1, as the
 * compiler counts it.
 */
function utf16Column({ text, starts }: Lines, line: number, column: number): number {
  let at = starts[line - 1];
  if (at === undefined) return column;
  if (at === 0 && text.charCodeAt(0) === 0xfeff) at = 1;
  let units = 0;
  for (let n = 1; n < column; n++) {
    const c = text.codePointAt(at);
    // Past the line's end (a position at its break, or clamped), each column is one unit.
    if (c === undefined || c === 10 || c === 13) units += 1;
    else {
      const width = c > 0xffff ? 2 : 1;
      units += width;
      at += width;
    }
  }
  return units + 1;
}
