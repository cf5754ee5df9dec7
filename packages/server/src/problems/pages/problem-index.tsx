import type { ProblemList } from '../describe.js';
import { Layout } from './layout.js';

/** Every problem the hub answers with, linking to each one's page. */
export function ProblemIndexPage({ list }: { list: ProblemList }) {
  return (
    <Layout title="Problems">
      <h1>Problems</h1>
      <p>
        The hub answers every error with a problem document (RFC 9457) whose <code>type</code> is the address of one of
        these pages. Each says what the problem means and what to do about it.
      </p>
      <table class="list">
        <thead>
          <tr>
            <th scope="col">Status</th>
            <th scope="col">Code</th>
            <th scope="col">Title</th>
          </tr>
        </thead>
        <tbody>
          {list.problems.map((problem) => (
            <tr key={problem.code}>
              <td>{problem.status}</td>
              <td>
                <a href={`/problems/${problem.code}`}>
                  <code>{problem.code}</code>
                </a>
              </td>
              <td>{problem.title}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Layout>
  );
}
