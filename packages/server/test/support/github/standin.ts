// A local GitHub for tests: answers the REST calls the hub makes, after checking each against
// GitHub's published description and the credential GitHub would demand, and GitHub's web side of
// an app's user authorization. What GitHub would refuse is refused the same way and recorded.
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Site } from './answers.js';
import { authenticate, Refusal, type AppIdentity, type RawAnswer } from './credentials.js';
import { githubDescription, type GitHubDescription } from './description.js';
import { Faults, type FailOptions, type RateLimitOptions } from './faults.js';
import { publicKeyOf } from './jwt.js';
import { handlers } from './rest.js';
import type { Json } from './schema.js';
import { World, type InstallationSpec, type IssueSpec, type PullRequestSpec } from './state.js';
import { Views } from './views.js';
import { authorize, exchange, install, installPath, type WebApp } from './web.js';

export interface StandInOptions {
  appId?: string | number;
  slug?: string;
  /** GitHub Enterprise Server: the API under /api/v3, checked against the newest ghes-3.x description. */
  enterprise?: boolean;
  /** Where the install page sends the user back (the app's "Setup URL"). */
  setupUrl?: string;
  /** The app's callback URLs; when given, an authorize request's redirect_uri must start with one. */
  callbackUrls?: string[];
}

export interface RequestRecord {
  method: string;
  /** The path relative to the API's base (or the web path), without the query. */
  path: string;
  operationId?: string;
  status: number;
}

export interface Rejection extends RequestRecord {
  why: string;
}

export async function startGitHubStandIn(options: StandInOptions = {}): Promise<GitHubStandIn> {
  const standIn = new GitHubStandIn(options);
  await standIn.listen();
  return standIn;
}

export class GitHubStandIn extends Views {
  readonly appId: number;
  readonly slug: string;
  readonly enterprise: boolean;
  readonly privateKeyPem: string;
  readonly webhookSecret = randomBytes(20).toString('hex');
  readonly clientId = `Iv23li${randomBytes(7).toString('hex')}`;
  readonly clientSecret = randomBytes(20).toString('hex');
  readonly requests: RequestRecord[] = [];
  readonly rejected: Rejection[] = [];
  readonly description: GitHubDescription;
  private readonly faults = new Faults();
  private readonly identity: AppIdentity;
  private readonly web: WebApp;
  private readonly server: Server;
  private port = 0;

  constructor(options: StandInOptions) {
    super(new World());
    this.appId = Number(options.appId ?? 12345);
    this.slug = options.slug ?? 'hub-bot';
    this.enterprise = options.enterprise ?? false;
    this.description = githubDescription(this.enterprise);
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    this.privateKeyPem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
    this.identity = {
      id: this.appId,
      slug: this.slug,
      clientId: this.clientId,
      publicKey: publicKeyOf(this.privateKeyPem),
    };
    this.web = {
      slug: this.slug,
      clientId: this.clientId,
      clientSecret: this.clientSecret,
      setupUrl: options.setupUrl,
      callbackUrls: options.callbackUrls,
      signedIn: undefined,
    };
    this.server = createServer((request, response) => void this.serve(request, response));
  }

  get webUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get apiUrl(): string {
    return this.enterprise ? `${this.webUrl}/api/v3` : this.webUrl;
  }

  /** The app's install page: /apps/<slug>/installations/new, or /github-apps/… on Enterprise Server. */
  get installUrl(): string {
    return `${this.webUrl}${installPath(this.slug, this.enterprise)}`;
  }

  get setupUrl(): string | undefined {
    return this.web.setupUrl;
  }

  set setupUrl(url: string | undefined) {
    this.web.setupUrl = url;
  }

  /** Signs `login` in to the stand-in's GitHub: authorize and install pages approve as them. */
  authorizeUser(login: string | undefined): void {
    this.web.signedIn = login;
  }

  addInstallation(spec: InstallationSpec): void {
    this.world.installations.set(spec.id, spec);
  }

  addIssue(repository: string, spec: IssueSpec): void {
    this.world.putIssue({ ...spec, repository: this.world.canonical(repository), createdAt: now() });
  }

  addPullRequest(repository: string, spec: PullRequestSpec): void {
    const pull = { headSha: spec.headSha, headRef: spec.headRef, baseRef: spec.baseRef ?? 'main' };
    this.world.putIssue({ ...spec, repository: this.world.canonical(repository), pull, createdAt: now() });
  }

  /** A comment someone wrote on an issue or pull request (to react to, or to find in a listing); its id. */
  addComment(repository: string, number: number, comment: { body: string; login: string; id?: number }): number {
    return this.addAnyComment('issue_comment', repository, number, comment);
  }

  /** A review comment someone wrote on a pull request's diff; its id. */
  addReviewComment(repository: string, number: number, comment: { body: string; login: string; id?: number }): number {
    return this.addAnyComment('pull_request_review_comment', repository, number, comment);
  }

  failNext(options: FailOptions): void {
    this.faults.failNext(options);
  }

  rateLimitNext(options: RateLimitOptions): void {
    this.faults.rateLimitNext(options);
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private addAnyComment(
    kind: 'issue_comment' | 'pull_request_review_comment',
    repository: string,
    number: number,
    comment: { body: string; login: string; id?: number },
  ): number {
    const user = comment.login;
    const userType = user.endsWith('[bot]') ? 'Bot' : 'User';
    const stored = { ...comment, repository: this.world.canonical(repository), number, kind, user, userType } as const;
    return this.world.addComment(stored).id;
  }

  private get site(): Site {
    const app = { id: this.appId, slug: this.slug, name: this.slug, clientId: this.clientId, owner: 'hub-owner' };
    return { description: this.description, apiUrl: this.apiUrl, webUrl: this.webUrl, app };
  }

  private async serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', this.webUrl);
    const method = request.method ?? 'GET';
    const record: RequestRecord = { method, path: url.pathname, status: 0 };
    let answer: RawAnswer;
    try {
      const body = await readBody(request);
      answer = this.route(request, url, body, record);
    } catch (error) {
      const refusal =
        error instanceof Refusal ? error : new Refusal(500, 'Server Error', `the stand-in failed: ${String(error)}`);
      answer = refusal.answer ?? errorAnswer(refusal, record.operationId ? this.documentation(record) : undefined);
      this.rejected.push({ ...record, status: answer.status, why: refusal.why });
    }
    record.status = answer.status;
    this.requests.push(record);
    response.writeHead(answer.status, { 'x-github-request-id': randomUUID(), ...answer.headers });
    response.end(answer.body);
  }

  private route(request: IncomingMessage, url: URL, raw: string, record: RequestRecord): RawAnswer {
    const method = record.method;
    if (url.pathname === '/login/oauth/authorize' && method === 'GET')
      return authorize(this.world, this.web, url.searchParams);
    if (url.pathname === '/login/oauth/access_token' && method === 'POST') {
      const json = /json/.test(request.headers.accept ?? '');
      const form = { ...Object.fromEntries(url.searchParams), ...formOf(raw, request.headers['content-type']) };
      return exchange(this.world, this.web, form, json);
    }
    if (url.pathname === installPath(this.slug, this.enterprise) && method === 'GET')
      return install(this.world, this.web, url.searchParams);
    const base = this.enterprise ? '/api/v3' : '';
    if (!url.pathname.startsWith(`${base}/`))
      throw new Refusal(404, 'Not Found', `${url.pathname} is not under ${base}`);
    const path = url.pathname.slice(base.length);
    record.path = path;
    const match = this.description.match(method, path);
    if (!match.ok) throw new Refusal(404, 'Not Found', match.why);
    record.operationId = match.operation.operationId;
    const actor = authenticate(this.world, this.identity, match.operation, match.params, request.headers.authorization);
    const body = parseJson(raw);
    const errors = this.description.bodyErrors(match.operation, body);
    if (errors !== undefined) throw new Refusal(422, `Invalid request.\n\n${errors}`, `the body: ${errors}`);
    const handler = handlers[match.operation.operationId];
    if (handler === undefined) {
      throw new Refusal(404, 'Not Found', `the stand-in does not implement ${match.operation.operationId}`);
    }
    const fault = this.faults.take(path, actor.kind === 'installation' ? actor.installationId : undefined);
    if (fault !== undefined) return fault;
    const answer = handler({
      world: this.world,
      site: this.site,
      actor,
      params: match.params,
      body: (body ?? {}) as Json,
    });
    // The stand-in's own answers keep to the description too: a reader may rely on every field.
    const wrong = this.description.responseErrors(match.operation, answer.status, answer.body);
    if (wrong !== undefined) throw new Error(`its ${answer.status} answer breaks the description: ${wrong}`);
    return {
      status: answer.status,
      headers: { 'content-type': 'application/json; charset=utf-8', ...RATE_HEADERS() },
      body: answer.body === undefined ? undefined : JSON.stringify(answer.body),
    };
  }

  private documentation(record: RequestRecord): string | undefined {
    const match = this.description.match(record.method, record.path);
    return match.ok ? match.operation.documentationUrl : undefined;
  }
}

const RATE_HEADERS = () => ({
  'x-ratelimit-limit': '5000',
  'x-ratelimit-remaining': '4999',
  'x-ratelimit-used': '1',
  'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600),
  'x-ratelimit-resource': 'core',
});

function now(): string {
  return new Date().toISOString().replace(/\.\d+Z$/, 'Z');
}

function errorAnswer(refusal: Refusal, documentationUrl = 'https://docs.github.com/rest'): RawAnswer {
  const body = { message: refusal.githubMessage, documentation_url: documentationUrl, status: String(refusal.status) };
  return {
    status: refusal.status,
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify(body),
  };
}

function parseJson(raw: string): unknown {
  if (raw.trim() === '') return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw new Refusal(400, 'Problems parsing JSON', 'the body is no JSON');
  }
}

function formOf(raw: string, contentType: string | undefined): Record<string, string> {
  if (/json/.test(contentType ?? ''))
    return Object.fromEntries(Object.entries(parseJson(raw) ?? {}).map(([k, v]) => [k, String(v)]));
  return Object.fromEntries(new URLSearchParams(raw));
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
