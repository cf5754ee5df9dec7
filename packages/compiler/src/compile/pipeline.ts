import { IssueCollector } from '../issues/collect.js';
import type { CompileResult } from '../issues/issue.js';
import type { Limits } from '../limits/limits.js';
import { buildModel } from '../model/build.js';
import type { Draft } from '../model/draft.js';
import type { CompiledConfiguration } from '../model/types.js';
import { rules } from '../rules/index.js';
import { codePointLength, findLoneSurrogate, SourceText, stripBom } from '../source/text.js';

/** Runs every rule over the draft; the model is built only when nothing was found. */
export function finishDraft(
  draft: Draft,
  shape: CompiledConfiguration['shape'],
  issues: IssueCollector,
  limits: Limits,
): CompileResult<CompiledConfiguration> {
  const warnings = new IssueCollector();
  for (const rule of rules) rule({ draft, shape, issues, warnings, limits });
  if (issues.size > 0) return failed(issues, limits);
  return { ok: true, value: buildModel(draft, shape), warnings: warnings.finish(limits.maxIssues) };
}

export function failed(
  issues: IssueCollector,
  limits: Limits,
): { ok: false; issues: ReturnType<IssueCollector['finish']> } {
  return { ok: false, issues: issues.finish(limits.maxIssues) };
}

/** The length limit and well-formedness of a YAML string, checked before it is parsed. */
export function checkYamlText(yaml: string, pointer: string, limits: Limits, issues: IssueCollector): boolean {
  if (yaml.length > limits.maxYamlLength) {
    const length = codePointLength(yaml);
    if (length > limits.maxYamlLength) {
      issues.add(
        'limit.yaml_length',
        `The YAML is ${length} characters long; the limit is ${limits.maxYamlLength}.`,
        pointer,
      );
      return false;
    }
  }
  const text = stripBom(yaml);
  const lone = findLoneSurrogate(text);
  if (lone >= 0) {
    issues.add('text.malformed_unicode', 'The YAML is not well-formed Unicode: it has a lone surrogate.', pointer, {
      source: new SourceText(text),
      offset: lone,
    });
    return false;
  }
  return true;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A list of { path, content } from the input, or the pointer of the first entry that is not one. */
export function readFileList(
  list: unknown,
  pointer: string,
): { ok: true; files: { path: string; content: string; pointer: string }[] } | { ok: false; pointer: string } {
  if (!Array.isArray(list)) return { ok: false, pointer };
  const files: { path: string; content: string; pointer: string }[] = [];
  for (let index = 0; index < list.length; index++) {
    const entry: unknown = list[index];
    const at = `${pointer}/${index}`;
    if (!isRecord(entry)) return { ok: false, pointer: at };
    if (typeof entry.path !== 'string') return { ok: false, pointer: `${at}/path` };
    if (typeof entry.content !== 'string') return { ok: false, pointer: `${at}/content` };
    files.push({ path: entry.path, content: entry.content, pointer: at });
  }
  return { ok: true, files };
}
