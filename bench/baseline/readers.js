// @ts-check
/**
 * The hub's hand-written request-body readers as they were at commit 5875e52
 * (packages/server/src/http/body.ts: BodyCheck; routes/public.ts: readConfigurationBody,
 * readTriggerBody; routes/dispatch.ts: readDispatchBody), in plain JavaScript. Frozen: kept only
 * as the baseline of bench/validation.bench.js, which times them against the validator over the
 * OpenAPI document that replaced them. Do not fix or extend; the hub no longer uses them.
 *
 * The one change: HttpProblem is a minimal local class (the readers throw it on a bad body).
 */

/** @typedef {{ pointer: string, code: string, message: string }} FieldIssue */
/** @typedef {{ path: string, content: string }} FileEntry */
/** @typedef {{ shape: 'configuration', yaml: string, partials: FileEntry[] } | { shape: 'bundle', files: FileEntry[] }} AuthoredConfiguration */

export class HttpProblem extends Error {
  /**
   * @param {string} code
   * @param {string} detail
   * @param {{ issues?: FieldIssue[] }} [options]
   */
  constructor(code, detail, options = {}) {
    super(detail);
    this.code = code;
    this.issues = options.issues;
  }
}

/**
 * @param {unknown} value
 * @returns {value is Record<string, unknown>}
 */
export function isObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks a request body's shape (not its content: that is the compiler's). Collects every
 * problem as a field issue with a pointer into the body; `done()` throws one 400 for them all.
 */
export class BodyCheck {
  /** @param {unknown} body */
  constructor(body) {
    this.body = body;
    /** @type {FieldIssue[]} */
    this.issues = [];
  }

  /**
   * The body as an object whose keys are all in `allowed`, or undefined (with an issue).
   * @param {readonly string[]} allowed
   * @returns {Record<string, unknown> | undefined}
   */
  object(allowed) {
    if (!isObject(this.body)) {
      this.add('', 'request.type', 'The body must be a JSON object.');
      return undefined;
    }
    for (const key of Object.keys(this.body)) {
      if (!allowed.includes(key))
        this.add(`/${escape(key)}`, 'request.unknown_field', `Unknown field "${key}". Allowed: ${allowed.join(', ')}.`);
    }
    return this.body;
  }

  /**
   * @param {Record<string, unknown>} body
   * @param {string} key
   * @param {{ required?: boolean, pattern?: RegExp, patternHint?: string, maxLength?: number }} [options]
   * @returns {string | undefined}
   */
  string(body, key, options = {}) {
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
      this.add(
        `/${key}`,
        'request.too_long',
        `The field "${key}" may be at most ${options.maxLength} characters long.`,
      );
      return undefined;
    }
    if (options.pattern !== undefined && !options.pattern.test(value)) {
      this.add(`/${key}`, 'request.pattern', `The field "${key}" ${options.patternHint ?? 'has the wrong form'}.`);
      return undefined;
    }
    return value;
  }

  /**
   * A list of { path, content } strings, as partials and bundle files are sent.
   * @param {Record<string, unknown>} body
   * @param {string} key
   * @param {boolean} required
   * @returns {FileEntry[] | undefined}
   */
  files(body, key, required) {
    const value = body[key];
    if (value === undefined) {
      if (required) this.add(`/${key}`, 'request.required', `The field "${key}" is required.`);
      return required ? undefined : [];
    }
    if (!Array.isArray(value)) {
      this.add(`/${key}`, 'request.type', `The field "${key}" must be a list of { path, content }.`);
      return undefined;
    }
    /** @type {FileEntry[]} */
    const files = [];
    value.forEach((/** @type {unknown} */ entry, index) => {
      const at = `/${key}/${index}`;
      if (!isObject(entry)) {
        this.add(at, 'request.type', 'Each entry must be an object { path, content }.');
        return;
      }
      for (const field of Object.keys(entry)) {
        if (field !== 'path' && field !== 'content')
          this.add(
            `${at}/${escape(field)}`,
            'request.unknown_field',
            `Unknown field "${field}". Allowed: path, content.`,
          );
      }
      for (const field of /** @type {const} */ (['path', 'content'])) {
        if (typeof entry[field] !== 'string')
          this.add(
            `${at}/${field}`,
            entry[field] === undefined ? 'request.required' : 'request.type',
            `"${field}" must be a string.`,
          );
      }
      if (typeof entry.path === 'string' && typeof entry.content === 'string')
        files.push({ path: entry.path, content: entry.content });
    });
    return files;
  }

  /**
   * @param {string} pointer
   * @param {string} code
   * @param {string} message
   */
  add(pointer, code, message) {
    this.issues.push({ pointer, code, message });
  }

  /** Throws the 400 if anything was found. */
  done() {
    if (this.issues.length > 0) {
      throw new HttpProblem('invalid_request', 'The request body is not what this operation takes; see issues.', {
        issues: this.issues,
      });
    }
  }
}

/** @param {string} key */
function escape(key) {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * Shape A ({ projectSlug, yaml, partials? }) or B legacy ({ projectSlug, files }).
 * @param {unknown} body
 * @returns {{ projectSlug: string, authored: AuthoredConfiguration }}
 */
export function readConfigurationBody(body) {
  const check = new BodyCheck(body);
  const fields = check.object(['projectSlug', 'yaml', 'partials', 'files']);
  /** @type {AuthoredConfiguration | undefined} */
  let authored;
  /** @type {string | undefined} */
  let projectSlug;
  if (fields !== undefined) {
    projectSlug = check.string(fields, 'projectSlug');
    const hasYaml = fields.yaml !== undefined;
    if (hasYaml === (fields.files !== undefined)) {
      check.add(
        '',
        'request.shape',
        'Send either yaml (with optional partials), or files (a legacy bundle); not both, not neither.',
      );
    } else if (hasYaml) {
      if (fields.partials !== undefined && fields.files !== undefined)
        check.add('/files', 'request.unknown_field', 'files goes without yaml.');
      const yaml = check.string(fields, 'yaml');
      const partials = check.files(fields, 'partials', false);
      if (yaml !== undefined && partials !== undefined) authored = { shape: 'configuration', yaml, partials };
    } else {
      if (fields.partials !== undefined)
        check.add('/partials', 'request.unknown_field', 'A legacy bundle carries its partials among its files.');
      const files = check.files(fields, 'files', true);
      if (files !== undefined) authored = { shape: 'bundle', files };
    }
  }
  check.done();
  return {
    projectSlug: /** @type {string} */ (projectSlug),
    authored: /** @type {AuthoredConfiguration} */ (authored),
  };
}

/**
 * @param {unknown} body
 * @returns {string}
 */
export function readTriggerBody(body) {
  const check = new BodyCheck(body);
  const fields = check.object(['yaml']);
  const yaml = fields && check.string(fields, 'yaml');
  check.done();
  return /** @type {string} */ (yaml);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * @typedef {{ projectSlug: string, expectedVersionId?: string, trigger: string, actor: string, deliveryKey: string, input?: string }} DispatchRequest
 */

/**
 * @param {unknown} body
 * @returns {DispatchRequest}
 */
export function readDispatchBody(body) {
  const check = new BodyCheck(body);
  const fields = check.object(['projectSlug', 'expectedVersionId', 'trigger', 'actor', 'deliveryKey', 'input']);
  /** @type {Partial<DispatchRequest>} */
  const request = {};
  if (fields !== undefined) {
    request.projectSlug = check.string(fields, 'projectSlug', { maxLength: 255 });
    request.expectedVersionId = check.string(fields, 'expectedVersionId', {
      required: false,
      pattern: UUID,
      patternHint: 'must be a UUID',
    });
    request.trigger = check.string(fields, 'trigger', { maxLength: 255 });
    request.actor = check.string(fields, 'actor', { maxLength: 255, pattern: /\S/, patternHint: 'must not be blank' });
    request.deliveryKey = check.string(fields, 'deliveryKey', {
      maxLength: 255,
      pattern: /^[\s\S]+$/,
      patternHint: 'must be 1 to 255 characters',
    });
    request.input = check.string(fields, 'input', { required: false });
  }
  check.done();
  return /** @type {DispatchRequest} */ (request);
}
