import { HttpProblem } from '../problems/problem.js';
import type { Invalid } from './service.js';

/** The 422 of a document that did not compile or names resources the organization does not have. */
export function invalidProblem(invalid: Invalid, problem: 'invalid_configuration' | 'invalid_trigger'): HttpProblem {
  const what = problem === 'invalid_trigger' ? 'trigger' : 'configuration';
  const { issues } = invalid;
  const count = `${issues.length} issue${issues.length === 1 ? '' : 's'}`;
  return new HttpProblem(
    problem,
    invalid.stage === 'compile'
      ? `The ${what} has ${count}; see issues.`
      : `The ${what} names resources the organization does not have: ${count}; see issues.`,
    { issues },
  );
}
