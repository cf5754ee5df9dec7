// A worker thread of the compile pool: the compiler, off the event loop.
export { runTask as default } from './tasks.js';
