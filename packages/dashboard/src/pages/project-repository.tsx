import type { ProjectRow } from '../ports/projects.js';
import { Notice } from './layout.js';
import type { RepositoryFormState } from './projects-props.js';

/** A project's GitHub repository: shown to everyone, set and cleared by owners. */
export function ProjectRepository(props: {
  project: ProjectRow;
  owner: boolean;
  githubWebUrl: string | undefined;
  form: RepositoryFormState | undefined;
}) {
  const { project, owner, githubWebUrl, form } = props;
  const action = `/projects/${encodeURIComponent(project.slug)}/repository`;
  return (
    <section id="github" aria-labelledby="github-title">
      <h2 id="github-title">GitHub</h2>
      <p>
        {project.repository === null ? (
          <span class="muted">No repository: GitHub’s events start none of this project’s triggers.</span>
        ) : (
          <>
            Repository{' '}
            {githubWebUrl === undefined ? (
              <code>{project.repository}</code>
            ) : (
              <a href={`${githubWebUrl}/${project.repository}`}>
                <code>{project.repository}</code>
              </a>
            )}
            : its issues and pull requests start this project’s GitHub triggers.
          </>
        )}
        {githubWebUrl === undefined ? (
          <>
            {' '}
            <span class="muted">GitHub is off on this hub (see the </span>
            <a href="/settings/github">GitHub page</a>
            <span class="muted">).</span>
          </>
        ) : null}
      </p>
      {owner ? (
        <>
          <Notice message={form?.message} />
          <form class="repository" method="post" action={action}>
            <label for="repository">Repository (owner/name)</label>
            <input
              id="repository"
              name="repository"
              value={form?.value ?? project.repository ?? ''}
              placeholder="octo-org/hello-world"
              autocomplete="off"
              spellcheck={false}
              aria-invalid={form === undefined ? undefined : 'true'}
            />
            <button type="submit">Save</button>
          </form>
          {project.repository === null ? null : (
            <form class="inline" method="post" action={action}>
              <input type="hidden" name="repository" value="" />
              <button type="submit" class="secondary">
                Clear the repository
              </button>
            </form>
          )}
        </>
      ) : null}
    </section>
  );
}
