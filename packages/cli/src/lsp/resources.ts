// Optional: the resources a unit names (daemons, agent providers, modes, models), checked by the
// hub the user is logged in to, as `hub deploy --dry-run` would. Never on the way of a keystroke:
// a check publishes what is known for the unit's exact request, and asks the hub in the
// background when nothing is; its answer, cached by request, publishes again. Without a login
// (or for a configuration without a project to validate it for), nothing is asked.
import { configDir } from '../config-dir.js';
import { credentialFor, activeOrigin } from '../credentials.js';
import type { Finding } from '../check.js';
import { issuesOf } from '../deploy-report.js';
import type { Unit } from '../discovery.js';
import { hubRequest } from '../hub-client.js';
import { explicitOrigin } from '../origin.js';
import { requestFor } from '../payload.js';

/** Answers kept, by request body: enough for a few files edited back and forth. */
const CACHED = 64;

interface Login {
  origin: string;
  token: string;
}

export class HubResources {
  private readonly login: Promise<Login | undefined>;
  /** Request body → the hub's resource issues for it. */
  private readonly answers = new Map<string, Finding[]>();
  /** Unit key and file → whether a request is out, and the body to ask next when it returns. */
  private readonly asking = new Map<string, { next?: { unit: Unit; body: string; validate: string } }>();
  /** Set once the hub refused the credential: it is not asked again. */
  private refused = false;
  /** Aborts the requests out when the server ends: an exit never waits for a hub that is slow to answer. */
  private readonly stop = new AbortController();

  constructor(
    env: Record<string, string | undefined>,
    private readonly project: string | undefined,
    private readonly checked: (key: string) => void,
    private readonly log: (message: string) => void,
  ) {
    this.login = findLogin(env).catch(() => undefined);
  }

  /** The hub's resource issues for `unit`, if known; else undefined, and the hub is asked (for a later check). */
  issues(key: string, unit: Unit): Finding[] | undefined {
    if ((unit.kind !== 'trigger' && this.project === undefined) || this.refused) return undefined;
    const { body, validate } = requestFor(unit, this.project);
    const known = this.answers.get(body);
    if (known !== undefined) return known;
    const asking = this.asking.get(`${key}\0${unit.file}`);
    if (asking !== undefined) asking.next = { unit, body, validate };
    else void this.ask(key, unit, body, validate);
    return undefined;
  }

  private async ask(key: string, unit: Unit, body: string, validate: string): Promise<void> {
    const at = `${key}\0${unit.file}`;
    this.asking.set(at, {});
    try {
      const login = await this.login;
      if (login === undefined) return;
      if (this.stop.signal.aborted) return;
      const answer = await hubRequest(login.origin, login.token, 'POST', validate, body, this.stop.signal);
      // 200: valid; 422: its issues. Anything else (a refused credential, a hub away) says nothing about the files.
      if (answer.status === 401 || answer.status === 403) this.refused = true;
      if (answer.status !== 200 && answer.status !== 422)
        return this.log(`the hub at ${login.origin} answered ${answer.status}; resources are not checked`);
      this.remember(body, answer.status === 200 ? [] : resourceIssues(unit, answer.body));
      this.checked(key);
    } catch (error) {
      if (!this.stop.signal.aborted)
        this.log(`resources are not checked: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      const next = this.asking.get(at)?.next;
      this.asking.delete(at);
      if (next !== undefined && !this.answers.has(next.body) && !this.stop.signal.aborted)
        void this.ask(key, next.unit, next.body, next.validate);
    }
  }

  /** The server ends: requests out are abandoned and no more are made. */
  close(): void {
    this.stop.abort();
  }

  private remember(body: string, issues: Finding[]): void {
    this.answers.delete(body);
    this.answers.set(body, issues);
    for (const oldest of this.answers.keys()) {
      if (this.answers.size <= CACHED) break;
      this.answers.delete(oldest);
    }
  }
}

/** HUB_URL, else the active stored login; its credential: HUB_API_KEY, else the one stored for it. None: undefined. */
async function findLogin(env: Record<string, string | undefined>): Promise<Login | undefined> {
  const dir = configDir(env);
  const origin = explicitOrigin(undefined, env) ?? (await activeOrigin(dir));
  if (origin === undefined) return undefined;
  const token = env.HUB_API_KEY?.trim() || (await credentialFor(dir, origin))?.token;
  return token === undefined || token === '' ? undefined : { origin, token };
}

/** The resource.* issues of a 422 answer, placed in the unit's files as `hub deploy --json` places them. */
function resourceIssues(unit: Unit, body: unknown): Finding[] {
  // The resource codes are the compiler's issue codes (resolveResources).
  return issuesOf(unit, body)
    .filter((issue) => issue.code.startsWith('resource.'))
    .map((issue) => {
      const suggestion = SUGGESTION.exec(issue.message)?.[1];
      return (suggestion === undefined ? issue : { ...issue, suggestion }) as Finding;
    });
}

/**
 * The hub's answer (FieldIssue) carries no `suggestion`, only the compiler's message that ends in
 * it: read back here, at the wire, so that a quick fix serves the hub's issues as it does ours.
 */
const SUGGESTION = /; did you mean "(.*?)"\?(?=\s|$)/;
