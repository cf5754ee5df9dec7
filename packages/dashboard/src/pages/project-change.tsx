import { Layout } from './layout.js';
import type { ProjectChangePageProps } from './projects-props.js';

/** The confirmation before a project is deactivated or reactivated: a page, so it works without script. */
export function ProjectChangePage({ session, project, change }: ProjectChangePageProps) {
  const path = `/projects/${encodeURIComponent(project.slug)}`;
  const deactivate = change === 'deactivate';
  return (
    <Layout title={deactivate ? 'Deactivate project' : 'Reactivate project'} session={session} section="/projects">
      <h1>{deactivate ? 'Deactivate this project?' : 'Reactivate this project?'}</h1>
      <p>
        <strong>{project.name}</strong> (<code>{project.slug}</code>){' '}
        {deactivate
          ? 'vanishes from the API for every key: it is no longer listed, and no configuration can be installed to it. Its revisions are kept, and an owner can reactivate it.'
          : 'becomes visible to API keys again, with the configuration that was active when it was deactivated.'}
      </p>
      <form class="actions" method="post" action={`${path}/${change}`}>
        <button type="submit" class={deactivate ? 'danger' : undefined}>
          {deactivate ? 'Deactivate project' : 'Reactivate project'}
        </button>
        <a href={path}>Cancel</a>
      </form>
    </Layout>
  );
}
