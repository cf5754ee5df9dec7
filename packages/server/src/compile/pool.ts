import { availableParallelism } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { Piscina } from 'piscina';
import type { Logger } from '../http/logger.js';
import { HttpProblem } from '../problems/problem.js';
import { createReclaimer } from './reclaim.js';
import { runTask, taskSize, type CompileTask, type TaskResult } from './tasks.js';

export type Compile = (task: CompileTask) => Promise<TaskResult>;

export interface CompilePool {
  compile: Compile;
  close(): Promise<void>;
}

export interface CompilePoolOptions {
  /** Documents of fewer characters compile inline, on the calling thread (8 K unless given). */
  inlineBelow?: number;
  /** Documents of this many characters or more take the large lane, smaller ones (not inline) the small lane (128 K unless given). */
  largeFrom?: number;
  /** The large lane's worker threads; (cores − 1), at least 1, unless given. The small lane has one. */
  threads?: number;
  /** A worker idle this long is ended, and the thread that serves requests collects its garbage. */
  quietMs?: number;
  /** Each worker's old generation at most (HUB_COMPILE_MEMORY_MB): a compile that needs more ends its worker. */
  memoryMb?: number;
  /**
   * Characters of documents that may be in each lane at once, compiling or waiting
   * (HUB_COMPILE_QUEUE_CHARACTERS); 2,000,000 per large-lane thread unless given. A compile's time
   * grows with its size, so this bounds how long one waits. A document larger than this is taken
   * when its lane is empty.
   */
  queueCharacters?: number;
  /** The module each worker runs (its default export compiles a task); the pool's own worker unless given: for tests. */
  worker?: URL;
  log?: Logger;
}

/** A compile's old generation may grow to this unless configured: see docs/decisions.md, "Bodies and compiles under abuse". */
export const DEFAULT_COMPILE_MEMORY_MB = 256;
/**
 * Characters queued per compile thread unless configured: a 1,000,000-character document takes
 * 1 to 4 s to compile on a loaded 2-core machine, so one waits for about one compile ahead of it.
 */
export const QUEUE_CHARACTERS_PER_THREAD = 2_000_000;
/** The young generation of a worker, besides `memoryMb`: V8's default semi-space (16 MB) once more for headroom. */
const YOUNG_GENERATION_MB = 32;

/**
 * Compiles documents off the thread that serves requests, in two lanes, so that neither a
 * 1,000,000-character install stalls the requests served meanwhile nor a small document waits
 * behind one:
 *
 * - under `inlineBelow` characters (what an editor sends on a keystroke; a few milliseconds at
 *   most), inline: a worker round trip would cost about as much as the compile;
 * - under `largeFrom`, the small lane: one worker thread of its own;
 * - the rest, the large lane: (cores − 1) worker threads.
 *
 * Every worker runs at the lowest CPU priority (worker.ts), below the thread that serves requests.
 *
 * A worker's heap is capped (`memoryMb`): a document that needs more ends its worker, which is
 * replaced, and its request is answered 503 `server_busy`. Documents of at most
 * `queueCharacters` in all are in a lane at once, compiling or waiting their turn; one more is
 * refused at once with 503 `server_busy` and a Retry-After from the lane's recent compile times,
 * never left to wait without end. A lane's workers are started on its first compile and ended
 * when idle for `quietMs`.
 */
export function createCompilePool(options: CompilePoolOptions = {}): CompilePool {
  optimizeOnOwnThread();
  const inlineBelow = options.inlineBelow ?? 8 * 1024;
  const largeFrom = options.largeFrom ?? 128 * 1024;
  const threads = options.threads ?? Math.max(1, availableParallelism() - 1);
  const quietMs = options.quietMs ?? 2_000;
  const memoryMb = options.memoryMb ?? DEFAULT_COMPILE_MEMORY_MB;
  const queueCharacters = options.queueCharacters ?? QUEUE_CHARACTERS_PER_THREAD * threads;
  const reclaimer = createReclaimer(quietMs, () => small.inLane() + large.inLane() > 0);
  const lane = (laneThreads: number) =>
    createLane({
      threads: laneThreads,
      quietMs,
      memoryMb,
      queueCharacters,
      worker: options.worker,
      log: options.log,
      afterWork: () => reclaimer.afterLargeWork(),
    });
  const small = lane(1);
  const large = lane(threads);
  return {
    compile: async (task) => {
      const size = taskSize(task);
      if (size < inlineBelow) return runTask(task);
      return (size < largeFrom ? small : large).run(task, size);
    },
    close: async () => {
      reclaimer.close();
      await Promise.all([small.close(), large.close()]);
    },
  };
}

/**
 * V8 optimizes hot functions on its platform threads, shared by the whole process and at the
 * process's priority (niceness 0): a worker of a fresh isolate compiling a 1 MB document spent
 * about twice its own thread's CPU there (measured per thread in /proc: 0.50 s on the platform
 * threads against 0.25 s on the worker's, at niceness 19), so most of a "low priority" compile
 * competed with the requests on equal terms. Without concurrent recompilation, a worker's
 * isolate optimizes on its own thread, at its niceness (then 0.10 s and 0.59 s). The flag is read
 * when an isolate is made: the main thread's, made long before, keeps optimizing concurrently.
 */
function optimizeOnOwnThread(): void {
  setFlagsFromString('--no-concurrent-recompilation');
}

interface LaneOptions {
  threads: number;
  quietMs: number;
  memoryMb: number;
  queueCharacters: number;
  worker: URL | undefined;
  log: Logger | undefined;
  afterWork: () => void;
}

/** Worker threads with their own queue: at most `threads` compiles at once, `queueCharacters` in all. */
function createLane(options: LaneOptions) {
  const { threads, memoryMb, queueCharacters } = options;
  const pool = new Piscina({
    filename: (options.worker ?? new URL('./worker.js', import.meta.url)).href,
    // A worker that compiled a large document holds a heap of hundreds of MB: one idle for
    // `quietMs` is ended, and the next compile pays ~50 ms to start another.
    minThreads: 0,
    maxThreads: threads,
    idleTimeout: options.quietMs,
    resourceLimits: { maxOldGenerationSizeMb: memoryMb, maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
  });
  // A worker that fails with no task of its own has no request to answer (piscina replaces it on
  // the next task); without a listener, piscina's 'error' event would end the hub.
  pool.on('error', (error: unknown) => options.log?.error('compile worker failed', { error: String(error) }));
  // The waiting is done here, not in piscina's queue: a task queued there when its worker dies
  // (out of memory) waits for a new worker that, with minThreads 0, nothing starts. Here piscina
  // gets at most one task per thread, and each run() starts a worker when there are fewer than
  // `threads`.
  let running = 0;
  let charactersInLane = 0;
  const waiting: (() => void)[] = [];
  const turn = async () => {
    if (running < threads) running++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
  };
  const done = () => {
    const next = waiting.shift();
    if (next === undefined) running--;
    else next(); // the finished compile's turn passes to it
  };
  /** Recent compiles' time from arrival to answer, smoothed: about what one refused now would have waited. */
  let typicalMs = 1_000;
  const retryAfter = () => String(Math.min(60, Math.max(1, Math.ceil(typicalMs / 1000))));
  return {
    /** Compiles running or waiting. */
    inLane: () => running + waiting.length,
    run: async (task: CompileTask, size: number): Promise<TaskResult> => {
      const inLane = running + waiting.length;
      if (inLane > 0 && charactersInLane + size > queueCharacters) {
        throw new HttpProblem(
          'server_busy',
          `${inLane} documents of this size are being compiled or waiting; try again shortly.`,
          { headers: { 'Retry-After': retryAfter() } },
        );
      }
      charactersInLane += size;
      const arrived = performance.now();
      await turn();
      try {
        const result = (await pool.run(task)) as TaskResult;
        typicalMs = 0.7 * typicalMs + 0.3 * (performance.now() - arrived);
        return result;
      } catch (error) {
        throw busyOr(error, memoryMb, retryAfter);
      } finally {
        charactersInLane -= size;
        done();
        options.afterWork();
      }
    },
    close: () => pool.close(),
  };
}

/**
 * Piscina's failures that are the pool's state rather than the document's as 503 `server_busy`:
 * a full queue, a worker that ran out of memory or exited (it is replaced), a pool closing as the
 * hub stops. Anything else (a bug in the compiler) is left to be a 500.
 */
function busyOr(error: unknown, memoryMb: number, retryAfter: () => string): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : '';
  const headers = { 'Retry-After': retryAfter() };
  if (code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return new HttpProblem(
      'server_busy',
      `Compiling the document took more memory than a compile may use (${memoryMb} MB); try again later, or with a smaller document.`,
      { headers },
    );
  }
  if (
    /^worker exited with code/.test(message) ||
    message === 'Terminating worker thread' ||
    message === 'Task queue is at limit' ||
    message === 'No task queue available and all Workers are busy' ||
    (error instanceof Error && error.name === 'AbortError')
  ) {
    return new HttpProblem('server_busy', 'The compile could not finish on the hub just now; try again shortly.', {
      headers,
    });
  }
  return error;
}
