import type { ProjectRow, RevisionSummary } from '../ports/projects.js';
import { formatTime } from './format.js';
import { InstalledBy } from './installer.js';
import { Layout } from './layout.js';
import { Pager } from './pager.js';
import type { ProjectPageProps } from './projects-props.js';
import { ProjectTriggers, RecentRuns } from './project-triggers.js';
import { ProjectRepository } from './project-repository.js';

const projectPath = (slug: string) => `/projects/${encodeURIComponent(slug)}`;
export const revisionPath = (slug: string, version: number) => `${projectPath(slug)}/revisions/${version}`;

/** A project: its active configuration revision and the history of revisions, newest first. */
export function ProjectPage(props: ProjectPageProps) {
  const { session, project, active, revisions, pages } = props;
  const owner = session.current?.role === 'owner';
  return (
    <Layout title={project.name} session={session} section="/projects">
      <p class="crumbs">
        <a href="/projects">Projects</a>
      </p>
      <h1>{project.name}</h1>
      <p class="muted">
        <code>{project.slug}</code> · <ProjectStatus project={project} />
      </p>
      {project.active ? null : (
        <p class="notice warning">
          This project is deactivated: API keys do not see it, and no configuration can be installed to it.
        </p>
      )}
      <h2>Active configuration</h2>
      {active ? (
        <>
          <ActiveRevision slug={project.slug} revision={active} />
          <ProjectTriggers
            slug={project.slug}
            triggers={props.triggers}
            account={session.account}
            form={props.runForm}
            deliveryKey={props.deliveryKey}
          />
        </>
      ) : (
        <p class="empty">
          No configuration installed yet: from a repository with a <code>.hub/config.yml</code>, install one with{' '}
          <code>hub deploy --project {project.slug}</code> (<code>examples/hello</code> in the hub's repository is one
          to start from).
        </p>
      )}
      <RecentRuns slug={project.slug} runs={props.recentRuns} />
      <ProjectRepository
        project={project}
        owner={owner}
        githubWebUrl={props.githubWebUrl}
        form={props.repositoryForm}
      />
      {revisions.length > 0 || pages.page > 1 ? (
        <>
          <h2>History</h2>
          <RevisionTable slug={project.slug} revisions={revisions} />
          <Pager path={projectPath(project.slug)} pages={pages} label="Pages of the history" />
        </>
      ) : null}
      {owner ? (
        <p class="actions project-actions">
          <a
            class={`button ${project.active ? 'danger' : 'secondary'}`}
            href={`${projectPath(project.slug)}/${project.active ? 'deactivate' : 'reactivate'}`}
          >
            {project.active ? 'Deactivate project' : 'Reactivate project'}
          </a>
        </p>
      ) : null}
    </Layout>
  );
}

export function ProjectStatus({ project }: { project: Pick<ProjectRow, 'active'> }) {
  return (
    <span class={`status ${project.active ? 'active' : 'revoked'}`}>{project.active ? 'active' : 'deactivated'}</span>
  );
}

function ActiveRevision({ slug, revision }: { slug: string; revision: RevisionSummary }) {
  return (
    <dl class="facts">
      <dt>Version</dt>
      <dd>
        <a href={revisionPath(slug, revision.version)}>version {revision.version}</a>
      </dd>
      <dt>Installed</dt>
      <dd>
        <time datetime={revision.installedAt.toISOString()}>{formatTime(revision.installedAt)}</time>
      </dd>
      <dt>Installed by</dt>
      <dd>
        <InstalledBy installer={revision.installedBy} />
      </dd>
    </dl>
  );
}

function RevisionTable({ slug, revisions }: { slug: string; revisions: RevisionSummary[] }) {
  if (revisions.length === 0) return <p class="empty">No revisions on this page.</p>;
  return (
    <table class="list revisions">
      <thead>
        <tr>
          <th scope="col">Version</th>
          <th scope="col">Installed</th>
          <th scope="col">Installed by</th>
          <th scope="col">Status</th>
        </tr>
      </thead>
      <tbody>
        {revisions.map((revision) => (
          <tr key={revision.version}>
            <td data-label="Version">
              <a href={revisionPath(slug, revision.version)}>version {revision.version}</a>
            </td>
            <td data-label="Installed">
              <time datetime={revision.installedAt.toISOString()}>{formatTime(revision.installedAt)}</time>
            </td>
            <td data-label="Installed by">
              <InstalledBy installer={revision.installedBy} />
            </td>
            <td data-label="Status">
              {revision.active ? <span class="status active">active</span> : <span class="muted">replaced</span>}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
