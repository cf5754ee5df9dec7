// The request examples of the OpenAPI document: the example documents that @hub/schemas
// publishes (packages/schemas/examples/), read once when this module loads.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const read = (path: string) => readFileSync(require.resolve(`@hub/schemas/examples/${path}`), 'utf8');

export const configurationYaml = read('configuration.yml');

/** The partial that configuration.yml includes (not among the example files). */
export const configurationPartials = [{ path: 'testing.md', content: 'Run the whole suite.\n' }];

export const triggerYaml = read('trigger.yml');

/** The legacy bundle example, as { path, content } entries. */
export const bundleFiles = ['.hub/hub.yml', '.hub/workflows/review.yml', '.hub/workflows/partials/review.md'].map((path) => ({
  path,
  content: read(`bundle/${path}`),
}));
