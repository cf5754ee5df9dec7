import type { ExecutionView, RunRow } from '../ports/runs.js';
import type { RunPageProps, RunsPageProps } from './daemons-runs-props.js';
import { Layout } from './layout.js';
import { Time } from './times.js';

const label = (status: string) => status.replace('_', ' ');

/** The organization's most recent runs, newest first, each linking to its executions. */
export function RunsPage({ session, runs, olderHref, paged }: RunsPageProps) {
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
      {runs.length === 0 ? (
        paged ? (
          <p class="empty">No older runs.</p>
        ) : (
          <p class="empty">
            No runs yet: dispatch a manual run with <code>POST /api/v1/manual-runs</code>.
          </p>
        )
      ) : (
        <RunTable runs={runs} />
      )}
      {paged || olderHref ? (
        <nav class="pager" aria-label="Pages">
          {paged ? <a href="/runs">Newest runs</a> : null}
          {olderHref ? <a href={olderHref}>Older runs</a> : null}
        </nav>
      ) : null}
    </Layout>
  );
}

function RunTable({ runs }: { runs: RunRow[] }) {
  return (
    <table class="list runs">
      <thead>
        <tr>
          <th scope="col">Trigger</th>
          <th scope="col">Project</th>
          <th scope="col">Actor</th>
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

/** A run and its executions, as GET /api/v1/runs/{id} gives them. */
export function RunPage({ session, run }: RunPageProps) {
  const inputs = Object.entries(run.inputs);
  return (
    <Layout title={`Run of ${run.trigger}`} session={session} section="/runs">
      <p>
        <a href="/runs">Back to runs</a>
      </p>
      <h1>
        Run of <code>{run.trigger}</code>
      </h1>
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <span class={`status ${run.status}`}>{label(run.status)}</span>
        </dd>
        <dt>Project</dt>
        <dd>
          <code>{run.projectSlug}</code>
        </dd>
        <dt>Actor</dt>
        <dd>{run.actor}</dd>
        <dt>Created</dt>
        <dd>
          <Time at={run.createdAt} />
        </dd>
        <dt>Finished</dt>
        <dd>
          <Time at={run.finishedAt} none="not yet" />
        </dd>
        <dt>Delivery key</dt>
        <dd>
          <code>{run.deliveryKey}</code>
        </dd>
        <dt>Run id</dt>
        <dd>
          <code>{run.id}</code>
        </dd>
      </dl>
      <h2>Inputs</h2>
      {inputs.length === 0 ? (
        <p class="muted">No inputs.</p>
      ) : (
        <dl class="facts">
          {inputs.map(([name, value]) => [
            <dt key={`${name}-name`}>
              <code>{name}</code>
            </dt>,
            <dd key={`${name}-value`}>{value}</dd>,
          ])}
        </dl>
      )}
      <h2>Executions</h2>
      {run.executions.length === 0 ? (
        <p class="empty">No executions: the run started no step.</p>
      ) : (
        <ExecutionTable executions={run.executions} />
      )}
    </Layout>
  );
}

function ExecutionTable({ executions }: { executions: ExecutionView[] }) {
  return (
    <table class="list executions">
      <thead>
        <tr>
          <th scope="col">Step</th>
          <th scope="col">Daemon</th>
          <th scope="col">Status</th>
          <th scope="col">Exit code</th>
          <th scope="col">Message</th>
          <th scope="col">Created</th>
          <th scope="col">Started</th>
          <th scope="col">Finished</th>
        </tr>
      </thead>
      <tbody>
        {executions.map((execution) => (
          <tr key={execution.id}>
            <td data-label="Step">
              <code>{execution.stepId}</code>
            </td>
            <td data-label="Daemon">
              <code>{execution.daemon}</code>
            </td>
            <td data-label="Status">
              <span class={`status ${execution.status}`}>{label(execution.status)}</span>
            </td>
            <td data-label="Exit code">
              {execution.exitCode === null ? <span class="muted">—</span> : String(execution.exitCode)}
            </td>
            <td data-label="Message">{execution.message ?? <span class="muted">—</span>}</td>
            <td data-label="Created">
              <Time at={execution.createdAt} />
            </td>
            <td data-label="Started">
              <Time at={execution.startedAt} />
            </td>
            <td data-label="Finished">
              <Time at={execution.finishedAt} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
