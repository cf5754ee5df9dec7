// Which project `hub deploy` installs a configuration in, or `hub run` runs a trigger of, and
// why: --project, else the one .hub/project.yml names, else the organization's only project.
// With several and none chosen, the error lists them and both ways to choose.
import { checkCredential } from './credential-info.js';
import { CliError } from './errors.js';
import { printable } from './hub-client.js';
import { PROJECT_FILE, rememberedProject } from './project-file.js';
import { allProjects } from './project-list.js';

export interface ChosenProject {
  slug: string;
  /** Why this one, after "project SLUG (…)". */
  why: string;
  /** Given with --project: remembered in .hub/project.yml once the deploy succeeds. */
  given: boolean;
}

/** --project, else .hub/project.yml; undefined when neither names one (no hub is asked). */
export async function namedProject(given: string | undefined, root: string): Promise<ChosenProject | undefined> {
  if (given !== undefined) return { slug: given, why: 'given with --project', given: true };
  const remembered = await rememberedProject(root);
  return remembered === undefined ? undefined : { slug: remembered, why: `named in ${PROJECT_FILE}`, given: false };
}

/**
 * The organization's only project, asked of the hub; an error naming the ways to choose when it
 * has none or several. `subject` opens the error ("hub run needs a project"); `remembers`: a
 * --project is written to .hub/project.yml after it succeeds.
 */
export async function onlyProject(
  session: { origin: string; token: string },
  subject: string,
  command: string,
  remembers: boolean,
): Promise<ChosenProject> {
  const { origin, token } = session;
  const choose = `give --project SLUG${remembers ? ' (the deploy then remembers it)' : ''}, or write "project: SLUG" in ${PROJECT_FILE}`;
  let projects;
  try {
    projects = await allProjects(origin, token);
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    throw new CliError(
      `${subject}, and none was chosen: ${choose}. (Listing the organization's projects to pick its only one failed: ${error.message})`,
      2,
    );
  }
  const check = await checkCredential(origin, token);
  const organization = check.valid === true ? check.info.organization.slug : 'the organization';
  const only = projects[0];
  if (projects.length === 1 && only !== undefined)
    return { slug: only.slug, why: `the only project of ${printable(organization)}`, given: false };
  if (only === undefined)
    throw new CliError(
      `${subject}, and ${printable(organization)} has no project at ${origin}: create one in the dashboard (Projects), then run "${command} --project SLUG".`,
      2,
    );
  const list = projects.map((project) => `  ${printable(project.slug)}  ${printable(project.name)}`).join('\n');
  throw new CliError(
    `${subject}, and ${printable(organization)} has ${projects.length} projects:\n${list}\nChoose one: ${choose}.`,
    2,
  );
}
