import { IssueCollector } from '../issues/collect.js';
import type { CompileResult } from '../issues/issue.js';
import { partialNamesOf, resolveLimits, type CompileOptions } from '../limits/limits.js';
import { entries, field, listTrigger, root, type Draft, type DraftTrigger } from '../model/draft.js';
import type { CompiledConfiguration } from '../model/types.js';
import { classifyBundle, PARTIALS_DIR, WORKFLOWS_DIR } from '../paths/bundle.js';
import { checkPartials, intakeFiles } from '../paths/partials.js';
import { codePointLength } from '../source/text.js';
import { parseYaml, type ParsedDocument } from '../source/yaml.js';
import { validateDocument } from '../validate/errors.js';
import { failed, finishDraft, isRecord, readFileList } from './pipeline.js';

export interface BundleInput {
  /** .hub/hub.yml, every direct .hub/workflows/*.yml, and the partials they include. */
  files: { path: string; content: string }[];
}

/** Compiles a legacy bundle (shape B). Never throws. */
export function compileBundle(input: BundleInput, options?: CompileOptions): CompileResult<CompiledConfiguration> {
  const limits = resolveLimits(options);
  const issues = new IssueCollector();
  const given: unknown = input;
  const list = isRecord(given) ? readFileList(given.files, '/files') : ({ ok: false, pointer: '/files' } as const);
  if (!list.ok) {
    issues.add('input.invalid', 'The input must be { files: { path: string, content: string }[] }.', list.pointer);
    return failed(issues, limits);
  }
  if (list.files.length > limits.maxBundleFiles) {
    issues.add(
      'limit.file_count',
      `The bundle holds ${list.files.length} files; the limit is ${limits.maxBundleFiles}.`,
      '/files',
    );
    return failed(issues, limits);
  }
  for (const file of list.files) {
    if (file.content.length <= limits.maxFileLength) continue;
    const length = codePointLength(file.content);
    if (length > limits.maxFileLength) {
      issues.add(
        'limit.file_length',
        `The file is ${length} characters long; the limit is ${limits.maxFileLength}.`,
        `${file.pointer}/content`,
        {
          file: file.path,
        },
      );
    }
  }
  // Paths as given: a hub file refused for its path or content is not also "missing".
  const layout = classifyBundle(
    intakeFiles(list.files, limits, issues, 'bundle.duplicate'),
    issues,
    list.files.map((file) => file.path),
  );
  checkPartials(layout.partials, limits, issues, '/files');
  if (issues.has((code) => code.startsWith('limit.') || code === 'text.malformed_unicode'))
    return failed(issues, limits);

  const hub = layout.hub === undefined ? undefined : parseYaml(layout.hub.content, layout.hub.path, limits, issues);
  if (hub !== undefined) validateDocument('legacy-hub', hub, issues);
  const workflows: ParsedDocument[] = [];
  for (const file of layout.workflows) {
    const parsed = parseYaml(file.content, file.path, limits, issues);
    if (parsed === undefined) continue;
    validateDocument('legacy-workflow', parsed, issues);
    workflows.push(parsed);
  }
  if (hub === undefined || workflows.length < layout.workflows.length) return failed(issues, limits);

  const hubRoot = root(hub);
  const draft: Draft = {
    containers: { environments: field(hubRoot, 'environments'), agents: field(hubRoot, 'agents') },
    environments: entries(field(hubRoot, 'environments')).map(([name, node]) => ({
      node,
      name: { value: name, doc: hub, pointer: node.pointer },
      daemon: field(node, 'daemon'),
      cwd: field(node, 'cwd'),
    })),
    agents: new Map(entries(field(hubRoot, 'agents'))),
    triggers: workflows.map((doc): DraftTrigger => listTrigger(root(doc))),
    partials: layout.partials,
    includeDir: WORKFLOWS_DIR,
    includeOf: (path) => (path.startsWith(WORKFLOWS_DIR) ? path.slice(WORKFLOWS_DIR.length) : path),
    partialNames: partialNamesOf(options),
    includeTarget: (path) =>
      path.startsWith('partials/')
        ? { ok: true, path: `${WORKFLOWS_DIR}${path}` }
        : {
            ok: false,
            code: 'include.outside_partials',
            message: `Includes are relative to ${WORKFLOWS_DIR} and must lead into ${PARTIALS_DIR}: write "partials/${path}".`,
          },
  };
  return finishDraft(draft, 'bundle', issues, limits);
}
