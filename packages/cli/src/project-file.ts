// .hub/project.yml: the project that `hub deploy` installs the repository's configuration in, so
// that it needs no --project. Its own file, because .hub/config.yml and .hub/hub.yml are
// documents the compiler reads strictly (an unknown key is an issue). One key:
//   project: app
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isSlug } from '@hub/schemas';
import { isMap, isScalar, parseDocument } from 'yaml';
import { boundaryOf, refusalMessage, refusalOf } from './boundary.js';
import { CliError } from './errors.js';
import { printable } from './hub-client.js';

export const PROJECT_FILE = '.hub/project.yml';

const HEADER = `# The hub project that "hub deploy" installs this repository's configuration in
# (.hub/config.yml or .hub/hub.yml) when no --project is given. "hub deploy --project SLUG"
# writes it. Trigger files (.hub/triggers/) belong to the organization and need no project.
`;

function pathOf(root: string): string {
  return join(root, '.hub', 'project.yml');
}

/** The project .hub/project.yml names, or undefined when there is no such file; a file that says something else is an error (exit 2). */
export async function rememberedProject(root: string): Promise<string | undefined> {
  const path = pathOf(root);
  const refusal = refusalOf(path, boundaryOf(root));
  if (refusal !== undefined) throw new CliError(refusalMessage(refusal), 2);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CliError(`Could not read ${PROJECT_FILE}: ${(error as Error).message}`, 2);
  }
  const wrong = (what: string) =>
    new CliError(`${PROJECT_FILE} ${what}: it holds one line, "project: SLUG" (or give --project SLUG).`, 2);
  const document = parseDocument(text);
  if (document.errors.length > 0) throw wrong(`is not YAML (${document.errors[0]?.message.split('\n')[0] ?? ''})`);
  const contents = document.contents;
  if (!isMap(contents)) throw wrong('is not a mapping');
  for (const pair of contents.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : '';
    if (key !== 'project') throw wrong(`has the unknown key "${printable(key)}"`);
  }
  const slug = document.get('project');
  if (typeof slug !== 'string') throw wrong('names no project');
  if (!isSlug(slug))
    throw wrong(`names "${printable(slug)}", which is not a project slug (lowercase letters, digits and hyphens)`);
  return slug;
}

/**
 * Writes `project: slug` into .hub/project.yml, keeping the rest of an existing file (its
 * comments). Says what it did in a sentence; a file it cannot update is left alone and said.
 */
export async function rememberProject(root: string, slug: string): Promise<string | undefined> {
  const path = pathOf(root);
  if (refusalOf(path, boundaryOf(root)) !== undefined)
    return `${PROJECT_FILE} leads outside the repository or nowhere: project ${slug} is not remembered.`;
  let before: string | undefined;
  try {
    before = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      return `Could not read ${PROJECT_FILE} (${(error as Error).message}): project ${slug} is not remembered.`;
  }
  let text = `${HEADER}project: ${slug}\n`;
  let was: unknown;
  if (before !== undefined) {
    const document = parseDocument(before);
    if (document.errors.length > 0 || !isMap(document.contents))
      return `${PROJECT_FILE} is not a YAML mapping, so it was not changed: write "project: ${slug}" in it yourself.`;
    was = document.get('project');
    if (was === slug) return undefined;
    document.set('project', slug);
    text = document.toString();
  }
  try {
    await writeFile(path, text);
  } catch (error) {
    return `Could not write ${PROJECT_FILE} (${(error as Error).message}): project ${slug} is not remembered.`;
  }
  const instead = typeof was === 'string' ? ` instead of ${printable(was)}` : '';
  return `Remembered project ${slug} in ${PROJECT_FILE}${instead}: the next "hub deploy" here needs no --project.`;
}
