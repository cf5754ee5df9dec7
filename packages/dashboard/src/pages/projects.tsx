import type { ProjectRow } from '../ports/projects.js';
import { formatTime } from './format.js';
import { Layout, Notice } from './layout.js';
import { Pager } from './pager.js';
import type { ProjectFormValues, ProjectsPageProps } from './projects-props.js';
import { ListHead } from './list-head.js';

/** The organization's projects; owners also create, deactivate and reactivate them. */
export function ProjectsPage({ session, projects, pages, form }: ProjectsPageProps) {
  const current = session.current;
  if (!current) {
    return (
      <Layout title="Projects" session={session} section="/projects">
        <h1>Projects</h1>
        <p>You belong to no organization yet: ask an owner for an invitation.</p>
      </Layout>
    );
  }
  const owner = current.role === 'owner';
  return (
    <Layout title="Projects" session={session} section="/projects">
      <h1>Projects</h1>
      <p class="muted">
        Projects of <strong>{current.name}</strong>. A deactivated project is hidden from API keys until it is
        reactivated.
      </p>
      {projects.length === 0 && pages.page === 1 ? (
        <p class="empty">
          No projects yet: create one, then install a configuration with <code>hub deploy</code>.
        </p>
      ) : (
        <ProjectTable projects={projects} owner={owner} />
      )}
      <Pager path="/projects" pages={pages} label="Pages of projects" />
      {owner ? (
        <CreateProjectForm values={form ?? { slug: '', name: '' }} />
      ) : (
        <p class="muted">Only owners create and deactivate projects.</p>
      )}
    </Layout>
  );
}

function ProjectTable({ projects, owner }: { projects: ProjectRow[]; owner: boolean }) {
  return (
    <table class="list projects">
      <ListHead columns={['Project', 'Slug', 'Status', 'Configuration', 'Installed']} actions={owner} />
      <tbody>
        {projects.map((project) => {
          const href = `/projects/${encodeURIComponent(project.slug)}`;
          const change = project.active ? 'deactivate' : 'reactivate';
          return (
            <tr key={project.slug}>
              <td data-label="Project">
                <a href={href}>{project.name}</a>
              </td>
              <td data-label="Slug">
                <code>{project.slug}</code>
              </td>
              <td data-label="Status">
                <span class={`status ${project.active ? 'active' : 'revoked'}`}>
                  {project.active ? 'active' : 'deactivated'}
                </span>
              </td>
              <td data-label="Configuration">
                {project.activeVersion === null ? (
                  <span class="muted">none yet</span>
                ) : (
                  `version ${project.activeVersion}`
                )}
              </td>
              <td data-label="Installed">
                {project.installedAt ? (
                  <time datetime={project.installedAt.toISOString()}>{formatTime(project.installedAt)}</time>
                ) : (
                  <span class="muted">—</span>
                )}
              </td>
              {owner ? (
                <td data-label="">
                  <a class={`button ${project.active ? 'danger' : 'secondary'}`} href={`${href}/${change}`}>
                    {project.active ? 'Deactivate' : 'Reactivate'}
                    <span class="visually-hidden"> {project.name}</span>
                  </a>
                </td>
              ) : null}
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

function CreateProjectForm({ values }: { values: ProjectFormValues }) {
  return (
    <section aria-labelledby="create-project">
      <h2 id="create-project">Create a project</h2>
      <Notice message={values.message} />
      <form class="stack" method="post" action="/projects">
        <label for="project-slug">Slug</label>
        <input
          id="project-slug"
          name="slug"
          required
          maxLength={63}
          pattern="[a-z0-9][a-z0-9\-]{0,62}"
          value={values.slug}
          aria-describedby="project-slug-hint"
          autocomplete="off"
        />
        <small id="project-slug-hint" class="muted">
          How the API and <code>hub deploy</code> name it: lowercase letters, digits and hyphens, such as{' '}
          <code>web-app</code>.
        </small>
        <label for="project-name">Name</label>
        <input id="project-name" name="name" required maxLength={200} value={values.name} />
        <button type="submit">Create project</button>
      </form>
    </section>
  );
}
