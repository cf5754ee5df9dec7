import type { StoredFile } from '../ports/projects.js';
import { formatTime } from './format.js';
import { InstalledBy } from './installer.js';
import { Layout } from './layout.js';
import type { RevisionPageProps } from './projects-props.js';

/** A revision as it was installed, read-only: the YAML and its partials, or a legacy bundle's files. */
export function RevisionPage({ session, project, revision }: RevisionPageProps) {
  const { content } = revision;
  return (
    <Layout title={`${project.name} · version ${revision.version}`} session={session} section="/projects">
      <p class="crumbs">
        <a href="/projects">Projects</a> / <a href={`/projects/${encodeURIComponent(project.slug)}`}>{project.name}</a>
      </p>
      <h1>Version {revision.version}</h1>
      <p class="muted">
        {revision.active ? <span class="status active">active</span> : 'replaced'} · installed{' '}
        <time datetime={revision.installedAt.toISOString()}>{formatTime(revision.installedAt)}</time> by{' '}
        <InstalledBy installer={revision.installedBy} />
      </p>
      {content.shape === 'configuration' ? (
        <>
          <h2>Configuration</h2>
          <pre class="source">
            <code>{content.yaml}</code>
          </pre>
          <h2>Partials</h2>
          {content.partials.length === 0 ? <p class="muted">None.</p> : <Files files={content.partials} />}
        </>
      ) : (
        <>
          <h2>Files</h2>
          <p class="muted">A legacy bundle: its files as installed.</p>
          <Files files={content.files} />
        </>
      )}
    </Layout>
  );
}

function Files({ files }: { files: StoredFile[] }) {
  return (
    <>
      {files.map((file) => (
        <section key={file.path} class="file">
          <h3>
            <code>{file.path}</code>
          </h3>
          <pre class="source">
            <code>{file.content}</code>
          </pre>
        </section>
      ))}
    </>
  );
}
