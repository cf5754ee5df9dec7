import { HttpProblem, type FieldIssue } from '../problems/problem.js';

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks a request body's shape (not its content: that is the compiler's). Collects every
 * problem as a field issue with a pointer into the body; `done()` throws one 400 for them all.
 */
export class BodyCheck {
  readonly issues: FieldIssue[] = [];

  constructor(readonly body: unknown) {}

  /** The body as an object whose keys are all in `allowed`, or undefined (with an issue). */
  object(allowed: readonly string[]): Record<string, unknown> | undefined {
    if (!isObject(this.body)) {
      this.add('', 'request.type', 'The body must be a JSON object.');
      return undefined;
    }
    for (const key of Object.keys(this.body)) {
      if (!allowed.includes(key)) this.add(`/${escape(key)}`, 'request.unknown_field', `Unknown field "${key}". Allowed: ${allowed.join(', ')}.`);
    }
    return this.body;
  }

  string(
    body: Record<string, unknown>,
    key: string,
    options: { required?: boolean; pattern?: RegExp; patternHint?: string; maxLength?: number } = {},
  ): string | undefined {
    const value = body[key];
    if (value === undefined) {
      if (options.required !== false) this.add(`/${key}`, 'request.required', `The field "${key}" is required.`);
      return undefined;
    }
    if (typeof value !== 'string') {
      this.add(`/${key}`, 'request.type', `The field "${key}" must be a string.`);
      return undefined;
    }
    if (options.maxLength !== undefined && value.length > options.maxLength) {
      this.add(`/${key}`, 'request.too_long', `The field "${key}" may be at most ${options.maxLength} characters long.`);
      return undefined;
    }
    if (options.pattern !== undefined && !options.pattern.test(value)) {
      this.add(`/${key}`, 'request.pattern', `The field "${key}" ${options.patternHint ?? 'has the wrong form'}.`);
      return undefined;
    }
    return value;
  }

  /** A list of { path, content } strings, as partials and bundle files are sent. */
  files(body: Record<string, unknown>, key: string, required: boolean): { path: string; content: string }[] | undefined {
    const value = body[key];
    if (value === undefined) {
      if (required) this.add(`/${key}`, 'request.required', `The field "${key}" is required.`);
      return required ? undefined : [];
    }
    if (!Array.isArray(value)) {
      this.add(`/${key}`, 'request.type', `The field "${key}" must be a list of { path, content }.`);
      return undefined;
    }
    const files: { path: string; content: string }[] = [];
    value.forEach((entry: unknown, index) => {
      const at = `/${key}/${index}`;
      if (!isObject(entry)) {
        this.add(at, 'request.type', 'Each entry must be an object { path, content }.');
        return;
      }
      for (const field of Object.keys(entry)) {
        if (field !== 'path' && field !== 'content') this.add(`${at}/${escape(field)}`, 'request.unknown_field', `Unknown field "${field}". Allowed: path, content.`);
      }
      for (const field of ['path', 'content'] as const) {
        if (typeof entry[field] !== 'string') this.add(`${at}/${field}`, entry[field] === undefined ? 'request.required' : 'request.type', `"${field}" must be a string.`);
      }
      if (typeof entry.path === 'string' && typeof entry.content === 'string') files.push({ path: entry.path, content: entry.content });
    });
    return files;
  }

  add(pointer: string, code: string, message: string): void {
    this.issues.push({ pointer, code, message });
  }

  /** Throws the 400 if anything was found. */
  done(): void {
    if (this.issues.length > 0) {
      throw new HttpProblem('invalid_request', 'The request body is not what this operation takes; see issues.', { issues: this.issues });
    }
  }
}

function escape(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}
