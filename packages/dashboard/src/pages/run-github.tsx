import type { GitHubReport } from '../ports/github.js';
import { formatTime } from './format.js';
import { Time } from './times.js';

type Event = Record<string, string>;

/** A URL the page may link to: http(s) only (the event's `url` is GitHub's, as the webhook gave it). */
const safeUrl = (url: string | undefined) => (url !== undefined && /^https?:\/\//.test(url) ? url : undefined);

/** What started a GitHub run: the mention or the label, on which issue or pull request of which repository. */
export function GitHubSource({ event, actor }: { event: Event; actor: string }) {
  const subject = event.kind === 'pull_request' ? 'pull request' : 'issue';
  const url = safeUrl(event.url);
  const number = `#${event.number ?? '?'}`;
  return (
    <>
      GitHub:{' '}
      {event.trigger === 'github.label' ? (
        <>
          {actor} added the label <code>{event.label ?? ''}</code> to
        </>
      ) : (
        <>{actor} mentioned the app in</>
      )}{' '}
      {subject} {url === undefined ? number : <a href={url}>{number}</a>} of <code>{event.repository ?? ''}</code>
      {event.title ? <span class="muted"> ({event.title})</span> : null}
      {event.kind === 'pull_request' && event.branch ? (
        <span class="muted">
          {' '}
          on the branch <code>{event.branch}</code>
        </span>
      ) : null}
    </>
  );
}

const now = () => new Date();

/** A time to come: `12:03 UTC` today, with its date on another day. */
const until = (at: Date) =>
  at.toISOString().slice(0, 10) === now().toISOString().slice(0, 10) ? `${formatTime(at).slice(11)}` : formatTime(at);

/** One thing owed to GitHub, in words: sent, waiting, delayed (and why), or failing and retried. */
function State(props: { sentAt: Date | null; lastError: string | null; delayedUntil: Date | null; sent: string }) {
  const { sentAt, lastError, delayedUntil } = props;
  if (sentAt !== null)
    return (
      <>
        {props.sent} <Time at={sentAt} />
      </>
    );
  if (delayedUntil !== null && delayedUntil > now())
    return (
      <>
        Delayed until <Time at={delayedUntil} />
        {lastError === null ? null : `: ${lastError}`}
      </>
    );
  if (lastError !== null) return <>Failed so far: {lastError}; retrying</>;
  return <>Waiting to be sent</>;
}

/** The run's report on GitHub in one sentence, as the run's page heads its GitHub section. */
function summary(report: GitHubReport): { text: string; kind: 'notice' | 'warning' | 'error' } {
  const run = report.run;
  const failing = [
    ...(run === undefined || run.endedReportedAt !== null ? [] : [run]),
    ...report.messages.filter((message) => message.sentAt === null),
  ];
  const delayed = failing.find((item) => item.delayedUntil !== null && item.delayedUntil > now());
  if (delayed?.delayedUntil)
    return {
      text: `Report to GitHub delayed until ${until(delayed.delayedUntil)}${delayed.lastError === null ? '' : `: ${delayed.lastError}`}`,
      kind: 'warning',
    };
  const failed = failing.find((item) => item.lastError !== null);
  if (failed) return { text: `Report failed so far: ${failed.lastError}, retrying`, kind: 'error' };
  if (run?.endedReportedAt) return { text: 'Reported on GitHub: the run’s comment says how it ended.', kind: 'notice' };
  if (run?.startedReportedAt)
    return { text: 'Reported on GitHub: the run’s comment is edited when the run ends.', kind: 'notice' };
  if (run === undefined && failing.length === 0 && report.messages.length > 0)
    return { text: 'Reported on GitHub.', kind: 'notice' };
  return { text: 'Not reported on GitHub yet.', kind: 'warning' };
}

const MESSAGE = { reaction: 'Eyes reaction', reply: 'Reply' } as const;

/** What the hub has told GitHub of the run: read from github_runs and github_messages. */
export function GitHubReportSection({ report, event }: { report: GitHubReport; event: Event }) {
  const { run } = report;
  const said = summary(report);
  const url = safeUrl(event.url);
  return (
    <section id="github" aria-labelledby="github-title">
      <h2 id="github-title">GitHub</h2>
      <p class={`notice ${said.kind} github-report`} role="status" data-github-report={said.kind}>
        {said.text}
      </p>
      <dl class="facts">
        {run === undefined ? null : (
          <>
            <dt>Comment</dt>
            <dd>
              {run.commentId === null ? (
                <span class="muted">not made yet</span>
              ) : url === undefined ? (
                <code>{run.commentId}</code>
              ) : (
                <a href={`${url}#issuecomment-${run.commentId}`}>
                  <code>{run.commentId}</code>
                </a>
              )}
            </dd>
            {event.kind === 'pull_request' ? (
              <>
                <dt>Check run</dt>
                <dd>
                  {run.checkRunId === null ? <span class="muted">not made yet</span> : <code>{run.checkRunId}</code>}
                </dd>
              </>
            ) : null}
            <dt>Start reported</dt>
            <dd>
              <Time at={run.startedReportedAt} none="not yet" />
            </dd>
            <dt>End reported</dt>
            <dd>
              <Time at={run.endedReportedAt} none="not yet" />
            </dd>
            {run.endedReportedAt === null && (run.lastError !== null || run.delayedUntil !== null) ? (
              <>
                <dt>Report</dt>
                <dd>
                  <State {...run} sentAt={null} sent="" />
                  {run.attempts > 0 ? <span class="muted"> ({run.attempts} attempts)</span> : null}
                </dd>
              </>
            ) : null}
          </>
        )}
        {report.messages.map((message) => [
          <dt key={`${message.kind}-name`}>{MESSAGE[message.kind]}</dt>,
          <dd key={`${message.kind}-state`}>
            <State {...message} sent="Sent" />
          </dd>,
        ])}
      </dl>
    </section>
  );
}
