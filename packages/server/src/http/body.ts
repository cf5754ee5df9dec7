// Reading request bodies: the hub's own JSON and form readers, with their limits and refusals, and
// how a refused body's connection is closed.
import type { Request, RequestHandler, Response } from 'express';
import { HttpProblem } from '../problems/problem.js';

/** application/json, with parameters: the one media type the OpenAPI document declares. */
export function isJsonType(type: string | undefined): boolean {
  return type !== undefined && /^application\/json\s*(?:;|$)/i.test(type);
}

export const notJson = () =>
  new HttpProblem('unsupported_media_type', 'Send the body as JSON, with Content-Type: application/json.');
/**
 * 413; with the operation's limit when it is known, so the client learns how large a body may be.
 * Every reader of the hub's own passes it; only a body refused by a parser that did not say its
 * limit goes without.
 */
export const tooLarge = (limit?: number) =>
  new HttpProblem(
    'payload_too_large',
    limit === undefined
      ? 'The body is larger than this operation accepts.'
      : `The body is larger than this operation accepts: at most ${sizeOf(limit)}.`,
  );

/** A byte count as people read it: 16 KiB, 1 MiB, 1,500 bytes. */
function sizeOf(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes.toLocaleString('en-US')} bytes`;
}
export const invalidJson = () =>
  new HttpProblem('invalid_request', 'The body is not valid JSON.', {
    issues: [{ pointer: '', code: 'request.json', message: 'The body is not valid JSON.' }],
  });

/** Whether a request carries a body: chunked, or a Content-Length other than 0. */
export function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** Bytes of an unread body that Node may read off to keep the connection (see `closeUnreadBody`). */
const DRAIN_AT_MOST = 64 * 1024;

/**
 * Node reads whatever body a request's handler left unread before the connection takes the next
 * request (for keep-alive): a refusal answered before the body (a 401, a 413 announced by
 * Content-Length, a 415) would then still take in all of it, up to gigabytes. With a body larger
 * than a few KB, or of unknown length, still unread when the answer starts, the answer says
 * `Connection: close` instead, and Node closes the connection once the answer is sent, reading
 * no more of it.
 */
export function closeUnreadBody(): RequestHandler {
  return (req, res, next) => {
    if (hasBody(req)) {
      const length = req.headers['content-length'];
      const large = length === undefined || !(Number(length) <= DRAIN_AT_MOST);
      const writeHead = res.writeHead;
      res.writeHead = function (this: Response, ...args: unknown[]) {
        if (large && !req.complete) {
          this.setHeader('Connection', 'close');
          lingerOnClose(req);
        }
        return (writeHead as (...args: unknown[]) => Response).apply(this, args);
      } as Response['writeHead'];
    }
    next();
  };
}

/** How long a refused body's connection stays open after the answer, for the client to read it. */
const LINGER_MS = 1_000;

/**
 * A lingering close, without reading: closing a connection whose peer is still sending makes the
 * kernel answer its next bytes with a reset, which may destroy the answer before the client has
 * read it (fetch then fails with EPIPE instead of showing its 413 or 401). So once the answer is
 * sent, the hub closes its side (the client sees the answer whole, then the end), stops reading,
 * and lets the connection go LINGER_MS later. Not reading costs nothing while the client's
 * unread bytes wait in the kernel's buffers (TCP then holds the client back), so a flood of large
 * refused bodies costs no more than their answers.
 */
function lingerOnClose(req: Request): void {
  // A request destroyed before its answer (its socket gone) has no connection left to linger on.
  const socket = req.socket as Request['socket'] | null;
  if (socket === null || socket.destroyed) return;
  const destroySoon = socket.destroySoon.bind(socket);
  socket.destroySoon = () => {
    if (req.complete || socket.destroyed) {
      destroySoon();
      return;
    }
    req.pause();
    socket.pause();
    socket.end();
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  };
}

/**
 * Reads a request's body, at most `limit` bytes, before anything parses it. A Content-Length over
 * the limit is refused (413) without reading a byte; a body of unknown length (chunked) is cut
 * off as it passes the limit. Either way the rest is never read: see `closeUnreadBody`.
 */
export function readBody(req: Request, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > limit) {
      reject(tooLarge(limit));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (error: unknown, body?: Buffer) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
      if (error === undefined) resolve(body as Buffer);
      else {
        req.pause();
        reject(error);
      }
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) done(tooLarge(limit));
      else chunks.push(chunk);
    };
    const onEnd = () => done(undefined, Buffer.concat(chunks, size));
    const onError = (error: Error) => done(error);
    const onClose = () => done(new HttpProblem('invalid_request', 'The body ended before it was complete.'));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

const unsupportedCharset = () => new HttpProblem('unsupported_media_type', 'Send the body as UTF-8 JSON.');

/** The charset parameter of a Content-Type, lower case; undefined when there is none. */
function charsetOf(type: string): string | undefined {
  return /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(type)?.[1]?.toLowerCase();
}

/**
 * Reads and parses a JSON body of at most `limit` bytes (see `readBody`): after authentication,
 * so that 401 and 403 come before 400, except where a route reads it first (`bodyFirst`). A body
 * that is not JSON, not UTF-8, compressed, or larger than `limit` is a problem; a request without
 * a body gets `undefined`.
 */
export function jsonBody(limit: number): RequestHandler {
  return async (req, _res, next) => {
    if (!hasBody(req)) {
      req.body = undefined;
      next();
      return;
    }
    const type = req.headers['content-type'];
    if (!isJsonType(type)) throw notJson();
    const charset = charsetOf(type as string);
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') throw unsupportedCharset();
    const encoding = req.headers['content-encoding'];
    if (encoding !== undefined && encoding.toLowerCase() !== 'identity') {
      throw new HttpProblem('unsupported_media_type', 'Send the body uncompressed, without Content-Encoding.');
    }
    req.body = parseJson(await readBody(req, limit));
    next();
  };
}

function parseJson(body: Buffer): unknown {
  if (body.length === 0) return undefined;
  // As body-parser did: a byte order mark is not part of the JSON text.
  const text = body.toString('utf8').replace(/^\uFEFF/, '');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw invalidJson();
  }
}

/** Parameters of a form at most: more is refused like a body over the limit (body-parser's parameterLimit). */
const FORM_PARAMETERS = 100;

/**
 * Reads and parses a form-encoded body (`application/x-www-form-urlencoded`, the OAuth
 * endpoints') of at most `limit` bytes into its parameters, a repeated one as an array; the body
 * of any other type is read (within the same limit) and left as `undefined`, for the handler to
 * refuse in its own (OAuth) terms. A body over `limit` is a 413 problem.
 */
export function formBody(limit: number): RequestHandler {
  return async (req, _res, next) => {
    if (!hasBody(req)) {
      req.body = undefined;
      next();
      return;
    }
    const body = await readBody(req, limit);
    req.body = /^application\/x-www-form-urlencoded\s*(?:;|$)/i.test(req.headers['content-type'] ?? '')
      ? parseForm(body)
      : undefined;
    next();
  };
}

function parseForm(body: Buffer): Record<string, string | string[]> {
  const text = body.toString('utf8');
  if (text.split('&').length > FORM_PARAMETERS)
    throw new HttpProblem('payload_too_large', `The form has more than ${FORM_PARAMETERS} parameters.`);
  const form: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  for (const [name, value] of new URLSearchParams(text)) {
    const earlier = form[name];
    form[name] = earlier === undefined ? value : Array.isArray(earlier) ? [...earlier, value] : [earlier, value];
  }
  return form;
}
