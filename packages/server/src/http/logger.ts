/** Structured JSON logs, one line each, to standard error. Never pass secrets in `fields`. */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /** Whether lines of `level` are written: skip gathering fields for lines nobody will read. */
  enabled(level: Level): boolean;
}

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 } as const;
export type Level = keyof typeof LEVELS;

export function createLogger(
  minimum: Level = 'info',
  write: (line: string) => void = (line) => process.stderr.write(line),
): Logger {
  const emit =
    (level: Level) =>
    (message: string, fields: Record<string, unknown> = {}) => {
      if (LEVELS[level] < LEVELS[minimum]) return;
      write(`${JSON.stringify({ time: new Date().toISOString(), level, message, ...fields })}\n`);
    };
  return {
    debug: emit('debug'),
    info: emit('info'),
    warn: emit('warn'),
    error: emit('error'),
    enabled: (level) => LEVELS[level] >= LEVELS[minimum],
  };
}

export function parseLevel(value: string | undefined): Level {
  return value !== undefined && value in LEVELS ? (value as Level) : 'info';
}
