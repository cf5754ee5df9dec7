// Waiting for what a hub does by itself (a scheduler's tick, a first tick computed): poll, 100 ms apart.

/** Polls `read` until `done` holds, for at most 30 s; the value that held. */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  for (let tries = 0; ; tries++) {
    const value = await read();
    if (done(value)) return value;
    if (tries > 300) throw new Error(`never: ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
