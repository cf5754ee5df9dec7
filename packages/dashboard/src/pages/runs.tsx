import { RUN_SOURCES, type RunRow, type RunSource } from '../ports/runs.js';
import type { RunsPageProps } from './daemons-runs-props.js';
import { Layout } from './layout.js';
import { Time } from './times.js';

export const label = (status: string) => status.replace('_', ' ');

/** How a run's source reads: what started it. */
export const sourceLabel = (source: RunSource) =>
  ({ manual: 'manual', schedule: 'schedule', github: 'GitHub' })[source];

const sourceHref = (source: RunSource | undefined) => (source === undefined ? '/runs' : `/runs?source=${source}`);

/** Links to the runs of each source; the one shown is current. */
function SourceFilter({ source }: { source: RunSource | undefined }) {
  return (
    <nav class="filters" aria-label="Runs by source">
      {[undefined, ...RUN_SOURCES].map((each) => (
        <a key={each ?? 'all'} href={sourceHref(each)} aria-current={each === source ? 'page' : undefined}>
          {each === undefined ? 'All' : sourceLabel(each)}
        </a>
      ))}
    </nav>
  );
}

/** The organization's most recent runs, newest first, each linking to its executions. */
export function RunsPage({ session, runs, olderHref, paged, source }: RunsPageProps) {
  const current = session.current;
  if (!current) {
    return (
      <Layout title="Runs" session={session} section="/runs">
        <h1>Runs</h1>
        <p>You belong to no organization yet: ask an owner for an invitation.</p>
      </Layout>
    );
  }
  return (
    <Layout title="Runs" session={session} section="/runs">
      <h1>Runs</h1>
      <p class="muted">
        Runs of <strong>{current.name}</strong>, newest first.
      </p>
      <SourceFilter source={source} />
      {runs.length === 0 ? (
        paged ? (
          <p class="empty">No older runs.</p>
        ) : source !== undefined ? (
          <p class="empty">No runs started by {source === 'manual' ? 'hand' : `${sourceLabel(source)}`} yet.</p>
        ) : (
          <p class="empty">
            No runs yet: start one with the <strong>Run</strong> form of a trigger on its{' '}
            <a href="/projects">project's page</a>, or from a terminal with{' '}
            <code>hub run &lt;trigger&gt; --project &lt;slug&gt; --follow</code>.
          </p>
        )
      ) : (
        <RunTable runs={runs} />
      )}
      {paged || olderHref ? (
        <nav class="pager" aria-label="Pages">
          {paged ? <a href={sourceHref(source)}>Newest runs</a> : null}
          {olderHref ? <a href={olderHref}>Older runs</a> : null}
        </nav>
      ) : null}
    </Layout>
  );
}

export function RunTable({ runs }: { runs: RunRow[] }) {
  return (
    <table class="list runs">
      <thead>
        <tr>
          <th scope="col">Trigger</th>
          <th scope="col">Project</th>
          <th scope="col">Actor</th>
          <th scope="col">Source</th>
          <th scope="col">Status</th>
          <th scope="col">Created</th>
          <th scope="col">Finished</th>
        </tr>
      </thead>
      <tbody>
        {runs.map((run) => (
          <tr key={run.id}>
            <td data-label="Trigger">
              <a href={`/runs/${encodeURIComponent(run.id)}`}>{run.trigger}</a>
            </td>
            <td data-label="Project">
              <code>{run.projectSlug}</code>
            </td>
            <td data-label="Actor">{run.actor}</td>
            <td data-label="Source">{sourceLabel(run.source)}</td>
            <td data-label="Status">
              <span class={`status ${run.status}`}>{label(run.status)}</span>
            </td>
            <td data-label="Created">
              <Time at={run.createdAt} />
            </td>
            <td data-label="Finished">
              <Time at={run.finishedAt} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
