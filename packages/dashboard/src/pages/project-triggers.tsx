import type { RunRow } from '../ports/runs.js';
import type { TriggerInput, TriggerView } from '../ports/work.js';
import type { RunFormState } from './projects-props.js';
import { RunTable } from './runs.js';
import { Schedules } from './project-schedules.js';

/** The names a person may run as, in order of preference: their name, e-mail, and its local part. */
export function personNames(account: { name: string; email: string }): string[] {
  return [...new Set([account.name, account.email, account.email.split('@')[0] as string])];
}

const minutes = (ms: number) => (ms % 3_600_000 === 0 ? `${ms / 3_600_000} h` : `${Math.round(ms / 60_000)} min`);

/**
 * What the active configuration defines: each trigger with its kinds, inputs, who may run it and
 * its steps (where, on which daemon, online or not), and for a manual.run trigger a Run form.
 */
export function ProjectTriggers(props: {
  slug: string;
  triggers: TriggerView[];
  account: { name: string; email: string };
  form: RunFormState | undefined;
  deliveryKey: string;
}) {
  const { slug, triggers } = props;
  return (
    <section id="triggers" aria-labelledby="triggers-title">
      <h2 id="triggers-title">Triggers</h2>
      {triggers.length === 0 ? (
        <p class="empty">No triggers: the active configuration defines none.</p>
      ) : (
        triggers.map((trigger) => (
          <article class="trigger" id={`trigger-${trigger.name}`} key={trigger.name}>
            <h3>
              <code>{trigger.name}</code>{' '}
              {trigger.kinds.map((kind) => (
                <span class="kind" key={kind}>
                  {kind}
                </span>
              ))}
              {trigger.enabled ? null : <span class="status revoked">disabled</span>}
            </h3>
            <dl class="facts">
              <dt>Who may run it</dt>
              <dd>
                {trigger.allowlist.length === 0 && !trigger.kinds.includes('manual.run') ? (
                  <span>its schedule alone</span>
                ) : trigger.allowlist.length === 0 ? (
                  <span>no one: add names to filters.from_users</span>
                ) : (
                  trigger.allowlist.map((name, i) => (
                    <>
                      {i > 0 ? ', ' : null}
                      <code key={name}>{name}</code>
                    </>
                  ))
                )}
              </dd>
              <dt>Longest run</dt>
              <dd>{minutes(trigger.maxRuntimeMs)}</dd>
              <dt>Inputs</dt>
              <dd>
                {trigger.inputs.length === 0 ? <span class="muted">none</span> : <Inputs inputs={trigger.inputs} />}
              </dd>
            </dl>
            {trigger.schedules.length === 0 ? null : <Schedules trigger={trigger.name} schedules={trigger.schedules} />}
            <table class="list steps">
              <thead>
                <tr>
                  <th scope="col">Step</th>
                  <th scope="col">Agent</th>
                  <th scope="col">Environment</th>
                  <th scope="col">Daemon</th>
                </tr>
              </thead>
              <tbody>
                {trigger.steps.map((step) => (
                  <tr key={step.id}>
                    <td data-label="Step">
                      <code>{step.id}</code>
                    </td>
                    <td data-label="Agent">
                      <code>{[step.provider, step.mode, step.model].filter(Boolean).join(' · ')}</code>
                    </td>
                    <td data-label="Environment">
                      <span>
                        <code>{step.environment}</code> in <code>{step.cwd}</code>
                      </span>
                    </td>
                    <td data-label="Daemon">
                      <span>
                        <a href="/daemons">
                          <code>{step.daemon}</code>
                        </a>{' '}
                        <span class={`status ${step.online ? 'succeeded' : 'failed'}`}>
                          {step.online ? 'online' : 'offline'}
                        </span>
                      </span>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            {trigger.kinds.includes('manual.run') && trigger.enabled ? (
              <RunForm
                {...props}
                trigger={trigger}
                form={props.form?.trigger === trigger.name ? props.form : undefined}
              />
            ) : null}
          </article>
        ))
      )}
      <p class="muted">
        From a terminal: <code>hub run &lt;trigger&gt; --project {slug} --follow</code>.
      </p>
    </section>
  );
}

function Inputs({ inputs }: { inputs: TriggerInput[] }) {
  return (
    <ul class="inputs">
      {inputs.map((input) => (
        <li key={input.name}>
          <code>{input.name}</code>
          {input.required ? ' (required)' : null}
          {input.enum ? (
            <>
              {' '}
              one of{' '}
              {input.enum.map((value, i) => (
                <>
                  {i > 0 ? ', ' : null}
                  <code key={value}>{value}</code>
                </>
              ))}
            </>
          ) : null}
          {input.default !== undefined ? (
            <>
              , default <code>{input.default}</code>
            </>
          ) : null}
          {input.description ? <span class="muted"> — {input.description}</span> : null}
        </li>
      ))}
    </ul>
  );
}

/**
 * A run of the trigger, started as the API's dispatch starts one: its inputs (an enum as a
 * choice, defaults filled), a prompt, and the actor: the person's own name where the allowlist has
 * it, otherwise a choice among the allowed names with none taken for them.
 */
function RunForm({
  slug,
  trigger,
  account,
  form,
  deliveryKey,
}: {
  slug: string;
  trigger: TriggerView;
  account: { name: string; email: string };
  form: RunFormState | undefined;
  deliveryKey: string;
}) {
  const id = (name: string) => `run-${trigger.name}-${name}`;
  const mine = personNames(account).find((name) => trigger.allowlist.includes(name));
  const actor = form?.values.actor ?? mine ?? '';
  const error = form?.message;
  return (
    <form class="stack run-form" method="post" action={`/projects/${encodeURIComponent(slug)}/runs`}>
      <h4>Run {trigger.name}</h4>
      {error ? (
        <p class="notice error" role="alert" id={id('error')}>
          {error}
        </p>
      ) : null}
      <input type="hidden" name="trigger" value={trigger.name} />
      <input type="hidden" name="deliveryKey" value={form?.values.deliveryKey ?? deliveryKey} />
      {trigger.inputs.map((input) => {
        const value = form?.values[`input.${input.name}`] ?? input.default ?? '';
        const invalid = form?.field === input.name;
        return (
          <>
            <label for={id(input.name)}>
              {input.name}
              {input.required ? ' (required)' : null}
            </label>
            {input.enum ? (
              <select id={id(input.name)} name={`input.${input.name}`} aria-invalid={invalid ? 'true' : undefined}>
                {input.required || input.default !== undefined ? null : <option value="">(none)</option>}
                {input.enum.map((option) => (
                  <option key={option} value={option} selected={option === value}>
                    {option}
                  </option>
                ))}
              </select>
            ) : (
              <input
                id={id(input.name)}
                name={`input.${input.name}`}
                value={value}
                required={input.required}
                aria-invalid={invalid ? 'true' : undefined}
              />
            )}
            {input.description ? <small class="muted">{input.description}</small> : null}
          </>
        );
      })}
      <label for={id('prompt')}>Prompt</label>
      <textarea id={id('prompt')} name="prompt" rows={3}>
        {form?.values.prompt ?? ''}
      </textarea>
      <label for={id('actor')}>Run as</label>
      {mine !== undefined ? (
        <select id={id('actor')} name="actor">
          {trigger.allowlist.map((name) => (
            <option key={name} value={name} selected={name === actor}>
              {name}
            </option>
          ))}
        </select>
      ) : (
        <>
          <select id={id('actor')} name="actor" required aria-describedby={id('actor-hint')}>
            <option value="" selected={actor === ''}>
              Choose who runs it
            </option>
            {trigger.allowlist.map((name) => (
              <option key={name} value={name} selected={name === actor}>
                {name}
              </option>
            ))}
          </select>
          <small class="muted" id={id('actor-hint')}>
            Neither your name nor your e-mail is in this trigger's filters.from_users: the run is recorded as started by
            you, as the name you choose.
          </small>
        </>
      )}
      <div class="actions">
        <button type="submit">Run {trigger.name}</button>
      </div>
    </form>
  );
}

/** The project's most recent runs, each linking to its page. */
export function RecentRuns({ slug, runs }: { slug: string; runs: RunRow[] }) {
  if (runs.length === 0) return null;
  return (
    <section aria-labelledby="recent-runs-title">
      <h2 id="recent-runs-title">Recent runs</h2>
      <RunTable runs={runs} />
      <p>
        <a href="/runs">All runs</a> · from a terminal, <code>hub runs --project {slug}</code>
      </p>
    </section>
  );
}
