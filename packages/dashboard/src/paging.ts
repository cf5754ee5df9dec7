import type { Request } from 'express';

/** How many rows a page of any list holds. */
export const PAGE_SIZE = 50;

/** `?page=` as a 1-based page number; anything else is the first page. */
export function pageOf(req: Request): number {
  const raw = typeof req.query.page === 'string' ? req.query.page : '';
  return /^[1-9][0-9]{0,5}$/.test(raw) ? Number(raw) : 1;
}

/** The rows of a page, for a store's `{ offset, limit }`. */
export const rowsOf = (page: number) => ({ offset: (page - 1) * PAGE_SIZE, limit: PAGE_SIZE });
