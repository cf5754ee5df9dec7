import type { Request } from 'express';
import type { Sql } from 'postgres';
import { ProjectList, type ProjectPage } from './list.js';
import type { Hub } from '../hub.js';
import { authOf, contextOf } from '../http/context.js';
import { handle, type Handlers } from '../http/operation.js';
import { HttpProblem } from '../problems/problem.js';
import { isSlug } from '@hub/schemas';

const LIMIT_MAX = 1000;

interface Project {
  id: string;
  slug: string;
  name: string;
  repository?: string;
}

/** A cursor names the last slug of a page: its UTF-8 bytes in base64url. */
export const toCursor = (slug: string) => Buffer.from(slug, 'utf8').toString('base64url');

/** The slug a cursor names; undefined when it is not a cursor this hub gives. */
export function fromCursor(cursor: string): string | undefined {
  if (!/^[A-Za-z0-9_-]{1,84}$/.test(cursor)) return undefined;
  const slug = Buffer.from(cursor, 'base64url').toString('utf8');
  return isSlug(slug) && toCursor(slug) === cursor ? slug : undefined;
}

/**
 * What a request asks for, read from its query before the document's validator has seen it (the
 * key check, where the listing is read, comes first): 'whole' for a plain call, a page, or
 * undefined when the query is not one the hub would take as it is (the validator or the handler
 * then answers it).
 */
function asked(query: Request['query']): 'whole' | ProjectPage | undefined {
  const { limit, cursor } = query;
  if (limit === undefined && cursor === undefined) return 'whole';
  if (
    limit !== undefined &&
    (typeof limit !== 'string' || !/^[1-9][0-9]{0,3}$/.test(limit) || Number(limit) > LIMIT_MAX)
  )
    return undefined;
  const after = cursor === undefined ? undefined : typeof cursor === 'string' ? fromCursor(cursor) : undefined;
  if (cursor !== undefined && after === undefined) return undefined;
  return { after, limit: limit === undefined ? undefined : Number(limit) };
}

const badCursor = () =>
  new HttpProblem('invalid_request', 'The cursor is not one this hub gave; pass `nextCursor` from an answer.', {
    issues: [
      { pointer: '', code: 'request.pattern', message: 'The query parameter cursor is not a cursor this hub gave.' },
    ],
  });

/**
 * GET /api/v1/projects (section 4.1): read in the key check's own statement, one round trip. A
 * plain call is the specification's whole list, sent as PostgreSQL wrote it; `limit` or `cursor`
 * ask for a page and get `nextCursor`.
 */
export function projectHandlers(hub: Hub): Handlers {
  const prefetch = (sql: Sql, req: Request) => {
    const wanted = asked(req.query);
    return wanted === undefined
      ? sql`null`
      : wanted === 'whole'
        ? ProjectList.whole(sql)
        : ProjectList.page(sql, wanted);
  };
  return {
    listProjects: handle(
      async ({ req, res, query }) => {
        if (query.limit === undefined && query.cursor === undefined) {
          const body =
            contextOf(req).prefetched ??
            (await ProjectList.readAlone(hub.sql, authOf(req).organizationId, ProjectList.whole(hub.sql)));
          res.set('Content-Type', 'application/json; charset=utf-8').send(body as string);
          return;
        }
        const after = query.cursor === undefined ? undefined : fromCursor(query.cursor);
        if (query.cursor !== undefined && after === undefined) throw badCursor();
        const page = { after, limit: query.limit };
        const rows = (contextOf(req).prefetched ??
          (await ProjectList.readAlone(
            hub.sql,
            authOf(req).organizationId,
            ProjectList.page(hub.sql, page),
          ))) as Project[];
        const projects = page.limit === undefined ? rows : rows.slice(0, page.limit);
        const last = projects.at(-1);
        res.json({
          projects,
          nextCursor: rows.length > projects.length && last !== undefined ? toCursor(last.slug) : null,
        });
      },
      { prefetch },
    ),
  };
}
