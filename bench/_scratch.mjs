import { performance } from 'node:perf_hooks';
import { parseDocument } from 'yaml';
import { compileConfiguration } from '../packages/compiler/dist/index.js';
import { generateConfiguration } from './generate.js';
const size = Number(process.argv[2] ?? 1e6);
const c = generateConfiguration(size);
const input = { yaml: c.text, partials: c.partials };
const fns = { floor: () => parseDocument(c.text), compile: () => compileConfiguration(input) };
for (const mode of (process.env.ORDER ?? 'gc,nogc').split(',')) for (const [name, fn] of Object.entries(fns)) {
  fn();
  const xs = [];
  for (let i = 0; i < 8; i++) { if (mode === 'gc') globalThis.gc(); const t = performance.now(); fn(); xs.push(performance.now() - t); }
  xs.sort((a, b) => a - b);
  console.log(mode, name, xs.map((x) => x.toFixed(0)).join(' '));
}
