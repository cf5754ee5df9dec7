import type { ExecutionView, OutputTail, RunDetail } from '../ports/runs.js';
import type { CancelRunPageProps, RunPageProps } from './daemons-runs-props.js';
import { Layout } from './layout.js';
import { plainText } from './output-text.js';
import { label, sourceLabel } from './runs.js';
import { Time } from './times.js';
import { GitHubReportSection, GitHubSource } from './run-github.js';

const runPath = (run: Pick<RunDetail, 'id'>) => `/runs/${encodeURIComponent(run.id)}`;
const outputPath = (run: Pick<RunDetail, 'id'>, execution: Pick<ExecutionView, 'id'>) =>
  `${runPath(run)}/executions/${encodeURIComponent(execution.id)}/output`;
const live = (status: string) => status === 'spawning' || status === 'running';

/** What started the run; for a scheduled one, its tick and the schedule's expression and zone. */
function Source({ run }: { run: RunDetail }) {
  const event = run.event ?? {};
  if (run.source === 'github' && run.event !== undefined) return <GitHubSource event={event} actor={run.actor} />;
  if (run.source !== 'schedule' || event.scheduledAt === undefined) return <>{sourceLabel(run.source)}</>;
  return (
    <>
      schedule: the tick of <Time at={new Date(event.scheduledAt)} />{' '}
      <span class="muted">
        (<code>{event.cron}</code>
        {event.timezone === undefined ? null : <> in {event.timezone}</>})
      </span>
    </>
  );
}

/** A run: what started it, its executions, and each one's output, live while it runs (dashboard.js). */
export function RunPage({ session, run, tails, githubReport }: RunPageProps) {
  const inputs = Object.entries(run.inputs);
  return (
    <Layout title={`Run of ${run.trigger}`} session={session} section="/runs">
      <p>
        <a href="/runs">Back to runs</a>
      </p>
      <div class="heading-actions">
        <h1>
          Run of <code>{run.trigger}</code>
        </h1>
        {run.status === 'running' ? (
          <a class="button danger" href={`${runPath(run)}/cancel`}>
            {run.cancelRequestedAt === null ? 'Cancel run' : 'Cancelling…'}
          </a>
        ) : null}
      </div>
      {run.message === undefined ? null : (
        <p class="notice error" role="status">
          {run.message}
        </p>
      )}
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <span class={`status ${run.status}`} data-run-status={run.status}>
            {label(run.status)}
          </span>
          {run.cancelRequestedAt !== null && run.cancelledBy !== null ? (
            <span class="muted">
              {' '}
              (cancellation asked for by {run.cancelledBy}, <Time at={run.cancelRequestedAt} />)
            </span>
          ) : null}
        </dd>
        <dt>Project</dt>
        <dd>
          <a href={`/projects/${encodeURIComponent(run.projectSlug)}`}>
            <code>{run.projectSlug}</code>
          </a>
        </dd>
        <dt>Source</dt>
        <dd>
          <Source run={run} />
        </dd>
        <dt>Actor</dt>
        <dd>{run.actor}</dd>
        <dt>Dispatched by</dt>
        <dd>{run.dispatchedBy}</dd>
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
      {githubReport === undefined ? null : <GitHubReportSection report={githubReport} event={run.event ?? {}} />}
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
        <>
          <ExecutionTable run={run} />
          {run.executions.map((execution) => (
            <ExecutionOutput key={execution.id} run={run} execution={execution} tail={tails.get(execution.id)} />
          ))}
        </>
      )}
    </Layout>
  );
}

/**
 * One execution's output: the end of it as text (escaped by preact; colour escapes stripped), and
 * while it runs the address of its live stream, which dashboard.js follows from the last chunk shown.
 */
function ExecutionOutput({ run, execution, tail }: { run: RunDetail; execution: ExecutionView; tail?: OutputTail }) {
  const text = plainText(tail?.text ?? '');
  const path = outputPath(run, execution);
  return (
    <section class="output" id={`output-${execution.id}`} aria-labelledby={`output-${execution.id}-title`}>
      <h3 id={`output-${execution.id}-title`}>
        Output of <code>{execution.stepId}</code> on <code>{execution.daemon}</code>
      </h3>
      <p class="muted output-notes">
        {tail?.earlier ? <>Earlier output is not shown here: </> : null}
        <a href={path}>{tail?.earlier ? 'the whole output as text' : 'Output as text'}</a>
        {live(execution.status) ? <span data-output-state> · live while it runs</span> : null}
      </p>
      <pre
        class="output-text"
        tabindex={0}
        aria-label={`Output of ${execution.stepId}`}
        data-output-stream={live(execution.status) ? path : undefined}
        data-after={String(tail?.lastSeq ?? -1)}
      >
        {text === '' ? <span class="muted output-empty">No output yet.</span> : text}
      </pre>
    </section>
  );
}

function ExecutionTable({ run }: { run: RunDetail }) {
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
        {run.executions.map((execution) => (
          <tr key={execution.id}>
            <td data-label="Step">
              <a href={`#output-${execution.id}`}>
                <code>{execution.stepId}</code>
              </a>
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

/** The confirmation before a run is cancelled: a page, so it works without script. */
export function CancelRunPage({ session, run }: CancelRunPageProps) {
  const running = run.executions.filter((execution) => live(execution.status));
  return (
    <Layout title="Cancel run" session={session} section="/runs">
      <h1>Cancel this run?</h1>
      <p>
        The run of <code>{run.trigger}</code> in <code>{run.projectSlug}</code>, started by {run.dispatchedBy} as{' '}
        <strong>{run.actor}</strong>, ends as cancelled.{' '}
        {running.length === 0
          ? 'No step has started yet: none will.'
          : `Its daemon stops the agent of ${running.map((execution) => execution.stepId).join(', ')} within seconds; what the agent already changed stays changed.`}{' '}
        This cannot be undone.
      </p>
      <form class="actions" method="post" action={`${runPath(run)}/cancel`}>
        <button type="submit" class="danger">
          Cancel run
        </button>
        <a href={runPath(run)}>Keep it running</a>
      </form>
    </Layout>
  );
}
