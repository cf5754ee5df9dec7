import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { createReclaimer } from './reclaim.js';
import { runTask, taskSize, type CompileTask, type TaskResult } from './tasks.js';

export type Compile = (task: CompileTask) => Promise<TaskResult>;

export interface CompilePool {
  compile: Compile;
  close(): Promise<void>;
}

/**
 * Compiles large documents in worker threads, so that a 1,000,000-character install never
 * stalls the requests served meanwhile, and small ones inline: a worker round trip would cost
 * them more than compiling, and they must not queue behind large ones.
 */
export function createCompilePool(options: { inlineBelow?: number; threads?: number; quietMs?: number } = {}): CompilePool {
  const inlineBelow = options.inlineBelow ?? 64 * 1024;
  const threads = options.threads ?? Math.max(1, availableParallelism() - 1);
  const quietMs = options.quietMs ?? 2_000;
  const pool = new Piscina({
    filename: new URL('./worker.js', import.meta.url).href,
    // A worker that compiled a large document holds a heap of hundreds of MB: one idle for
    // `quietMs` is ended, and the next large compile pays ~50 ms to start another.
    minThreads: 0,
    maxThreads: threads,
    idleTimeout: quietMs,
  });
  const reclaimer = createReclaimer(quietMs);
  return {
    compile: async (task) => {
      if (taskSize(task) < inlineBelow) return runTask(task);
      try {
        return await pool.run(task);
      } finally {
        reclaimer.afterLargeWork();
      }
    },
    close: async () => {
      reclaimer.close();
      await pool.close();
    },
  };
}
