// Reading whole numbers of days, seconds and milliseconds from the environment, each with its
// bounds and an error naming the variable (config.ts).

/** Days to keep (at least 1); `0` or `forever` keeps forever (undefined). */
export function days(env: NodeJS.ProcessEnv, name: string, fallback: number | undefined): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = raw.trim().toLowerCase();
  if (value === 'forever') return undefined;
  if (!/^\d{1,6}$/.test(value) || Number(value) > 36_500)
    throw new Error(
      `${name} must be a whole number of days up to 36500, or 0 or "forever" to keep forever, not "${raw}"`,
    );
  return Number(value) === 0 ? undefined : Number(value);
}

export function whole(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  min: number,
  max: number,
  what: string,
): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || value < min || value > max)
    throw new Error(`${name} must be ${what} from ${min} to ${max}, not "${raw}"`);
  return value;
}

export function seconds(env: NodeJS.ProcessEnv, name: string, fallback: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > max)
    throw new Error(`${name} must be a whole number of seconds from 1 to ${max}, not "${raw}"`);
  return value;
}

export function milliseconds(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 86_400_000)
    throw new Error(`${name} must be a whole number of milliseconds, not "${raw}"`);
  return value;
}
