import type { ProblemDescription } from '../describe.js';
import { Inline } from './inline.js';
import { Layout } from './layout.js';

/** What one problem means and what to do about it. */
export function ProblemPage({ problem }: { problem: ProblemDescription }) {
  return (
    <Layout title={problem.title}>
      <p class="muted">
        <a href="/problems">Problems</a> / <code>{problem.code}</code>
      </p>
      <h1>{problem.title}</h1>
      <ul class="facts">
        <li>
          HTTP status <strong>{problem.status}</strong>
        </li>
        <li>
          Code <code>{problem.code}</code>
        </li>
      </ul>
      <h2>What it means</h2>
      <p>
        <Inline text={problem.meaning} />
      </p>
      <h2>What to do</h2>
      <p>
        <Inline text={problem.action} />
      </p>
    </Layout>
  );
}
