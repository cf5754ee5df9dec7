import type { ComponentChildren } from 'preact';

/**
 * The one stylesheet of the hub's pages, inline (the pages load nothing else; the policy allows
 * exactly this text by its hash). System fonts, light and dark, readable from 320 px up.
 */
export const PAGE_STYLE = `
:root { color-scheme: light dark; --fg: #1f2328; --muted: #59636e; --bg: #ffffff; --line: #d1d9e0;
  --link: #0550ae; --code-bg: #eff2f5; --band: #f6f8fa; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6edf3; --muted: #9ea7b3; --bg: #0d1117; --line: #3d444d; --link: #71b7ff;
    --code-bg: #1f252d; --band: #151b23; }
}
*, *::before, *::after { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; text-size-adjust: 100%; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 1rem/1.6 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
.site, main { max-width: 50rem; margin: 0 auto; padding: 0 1.25rem; }
.band { background: var(--band); border-bottom: 1px solid var(--line); }
.site { display: flex; align-items: baseline; gap: 1rem; padding-top: .75rem; padding-bottom: .75rem; }
.site strong { font-size: 1.05rem; }
main { padding-top: 1.5rem; padding-bottom: 3rem; }
h1 { font-size: 1.75rem; line-height: 1.25; margin: .25rem 0 1rem; }
h2 { font-size: 1.15rem; line-height: 1.3; margin: 2rem 0 .5rem; }
p { margin: 0 0 1rem; max-width: 42rem; }
a { color: var(--link); text-underline-offset: .15em; }
a:focus-visible { outline: 2px solid var(--link); outline-offset: 2px; border-radius: 2px; }
code { font-family: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace;
  font-size: .9em; background: var(--code-bg); border-radius: 4px; padding: .1em .3em; overflow-wrap: anywhere; }
.muted { color: var(--muted); }
.facts { display: flex; flex-wrap: wrap; gap: .5rem 1.5rem; margin: 0 0 1.5rem; padding: 0; list-style: none; }
table { width: 100%; border-collapse: collapse; }
th, td { text-align: left; vertical-align: top; padding: .5rem .75rem .5rem 0; border-bottom: 1px solid var(--line); }
th { font-size: .875rem; color: var(--muted); font-weight: 600; }
td:first-child, th:first-child { width: 4.5rem; font-variant-numeric: tabular-nums; }
.list td:nth-child(2) { width: 1%; white-space: nowrap; padding-right: 2.5rem; }
@media (max-width: 30rem) {
  .site, main { padding-left: 1rem; padding-right: 1rem; }
  h1 { font-size: 1.45rem; }
  .list thead { display: none; }
  .list tr { display: grid; grid-template-columns: 3rem minmax(0, 1fr); column-gap: .5rem;
    padding: .5rem 0; border-bottom: 1px solid var(--line); }
  .list td, .list td:nth-child(2) { border: 0; padding: 0; width: auto; white-space: normal; }
  .list td:first-child { grid-row: span 2; }
}
`;

/** The frame of every page: title, viewport, the inline style, the hub's band and `main`. */
export function Layout({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · Hub`}</title>
        <style dangerouslySetInnerHTML={{ __html: PAGE_STYLE }} />
      </head>
      <body>
        <header class="band">
          <div class="site">
            <strong>Hub</strong>
            <a href="/problems">Problems</a>
          </div>
        </header>
        <main>{children}</main>
      </body>
    </html>
  );
}
