import { availableParallelism } from 'node:os';
import type { CompileResult, CompiledConfiguration } from '@hub/compiler';
import { Piscina } from 'piscina';
import { runTask, taskSize, type CompileTask } from './tasks.js';

export type Compile = (task: CompileTask) => Promise<CompileResult<CompiledConfiguration>>;

export interface CompilePool {
  compile: Compile;
  close(): Promise<void>;
}

/**
 * Compiles large documents in worker threads, so that a 1,000,000-character install never
 * stalls the requests served meanwhile, and small ones inline: a worker round trip would cost
 * them more than compiling, and they must not queue behind large ones.
 */
export function createCompilePool(options: { inlineBelow?: number; threads?: number } = {}): CompilePool {
  const inlineBelow = options.inlineBelow ?? 64 * 1024;
  const threads = options.threads ?? Math.max(1, availableParallelism() - 1);
  const pool = new Piscina({
    filename: new URL('./worker.js', import.meta.url).href,
    minThreads: 1,
    maxThreads: threads,
    idleTimeout: 60_000,
  });
  return {
    compile: (task) => (taskSize(task) < inlineBelow ? Promise.resolve(runTask(task)) : pool.run(task)),
    close: () => pool.close(),
  };
}
