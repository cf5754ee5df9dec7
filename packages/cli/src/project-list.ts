// The organization's active projects (GET /api/v1/projects), every page: `hub projects` lists
// them, `hub deploy` picks the only one.
import type { WireSchema } from '@hub/schemas';
import { CliError } from './errors.js';
import { hubRequest, renderProblem } from './hub-client.js';
import type { Unread } from './unread.js';

export type Project = WireSchema<'Project'>;

/** Projects asked for per request (the hub's largest page). */
export const PAGE = 1000;

/**
 * Every page of the list, `PAGE` at a time, following `nextCursor`. A hub from before pagination
 * ignores the query and answers the whole list without a cursor, which ends the walk too.
 */
export async function allProjects(origin: string, token: string): Promise<Project[]> {
  const list: Project[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  do {
    const query = `?limit=${PAGE}${cursor === undefined ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
    const answer = await hubRequest(origin, token, 'GET', `/api/v1/projects${query}`);
    if (answer.status !== 200) throw new CliError(renderProblem(answer));
    const page = pageOf(answer.body);
    if (page === undefined)
      throw new CliError(`The hub at ${origin} answered with something other than a project list.`);
    list.push(...page.projects);
    cursor = page.nextCursor;
    if (cursor !== undefined && seen.has(cursor))
      throw new CliError(`The hub at ${origin} gave the same page cursor twice; the listing would never end.`);
    if (cursor !== undefined) seen.add(cursor);
  } while (cursor !== undefined);
  return list;
}

function pageOf(body: unknown): { projects: Project[]; nextCursor: string | undefined } | undefined {
  const answer = body as Unread<WireSchema<'ProjectList'>> | undefined;
  const list = answer?.projects;
  if (!Array.isArray(list)) return undefined;
  const valid = list.every(
    (item) =>
      typeof item === 'object' && item !== null && ['id', 'slug', 'name'].every((key) => typeof item[key] === 'string'),
  );
  const next = answer?.nextCursor;
  if (!valid || (next !== undefined && next !== null && typeof next !== 'string')) return undefined;
  return { projects: list as Project[], nextCursor: typeof next === 'string' ? next : undefined };
}
