import type { IssueCollector } from '../issues/collect.js';
import type { PartialEntry } from '../model/draft.js';
import { foldPath } from './check-path.js';

export const HUB_FILE = '.hub/hub.yml';
export const WORKFLOWS_DIR = '.hub/workflows/';
export const PARTIALS_DIR = '.hub/workflows/partials/';

export interface BundleLayout {
  hub: PartialEntry | undefined;
  workflows: PartialEntry[];
  partials: PartialEntry[];
}

/**
 * Sorts a legacy bundle's files into the hub file, the direct workflows and the partials, and
 * reports every file that has no place in a bundle, saying why.
 */
export function classifyBundle(
  files: PartialEntry[],
  issues: IssueCollector,
  given: string[] = files.map((file) => file.path),
): BundleLayout {
  const layout: BundleLayout = { hub: undefined, workflows: [], partials: [] };
  for (const file of files) {
    const pointer = `${file.pointer}/path`;
    const where = { file: file.path };
    if (file.path === HUB_FILE) layout.hub = file;
    else if (file.path.startsWith(PARTIALS_DIR)) layout.partials.push(file);
    else if (file.path.startsWith(WORKFLOWS_DIR)) {
      const rest = file.path.slice(WORKFLOWS_DIR.length);
      if (rest.includes('/')) {
        issues.add(
          'bundle.nested_workflow',
          `Workflows live directly in ${WORKFLOWS_DIR}; "${file.path}" is in a subdirectory, and only ${PARTIALS_DIR} may have files below it.`,
          pointer,
          where,
        );
      } else if (rest.endsWith('.yml')) layout.workflows.push(file);
      else if (rest.endsWith('.yaml')) {
        issues.add(
          'bundle.workflow_extension',
          `Workflow files end in .yml; rename "${file.path}" to "${file.path.slice(0, -'.yaml'.length)}.yml".`,
          pointer,
          where,
        );
      } else {
        issues.add('bundle.extra', `"${file.path}" is not a workflow: workflow files end in .yml.`, pointer, where);
      }
    } else {
      issues.add(
        'bundle.extra',
        `"${file.path}" has no place in a legacy bundle, which holds ${HUB_FILE}, ${WORKFLOWS_DIR}*.yml and ${PARTIALS_DIR}.`,
        pointer,
        where,
      );
    }
  }
  if (layout.hub === undefined && !given.some((path) => foldPath(path.replace(/^\.\//, '')) === HUB_FILE)) {
    issues.add('bundle.hub_file_missing', `The bundle has no ${HUB_FILE}.`, '/files');
  }
  return layout;
}
