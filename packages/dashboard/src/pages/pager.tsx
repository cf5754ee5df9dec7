import type { PageLinks } from './projects-props.js';

/** Previous and next links of a paginated list (`?page=`), shown when there is another page. */
export function Pager({ path, pages, label }: { path: string; pages: PageLinks; label: string }) {
  if (pages.page <= 1 && !pages.more) return null;
  // `path` may carry a query of its own (`/daemons?retired=1`): the page number joins it.
  const at = (page: number) => (page <= 1 ? path : `${path}${path.includes('?') ? '&' : '?'}page=${page}`);
  return (
    <nav class="pager" aria-label={label}>
      {pages.page > 1 ? (
        <a href={at(pages.page - 1)} rel="prev">
          ← Previous page
        </a>
      ) : null}
      <span class="muted">Page {pages.page}</span>
      {pages.more ? (
        <a href={at(pages.page + 1)} rel="next">
          Next page →
        </a>
      ) : null}
    </nav>
  );
}
