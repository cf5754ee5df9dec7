// Who `hub run` dispatches as when --actor is not given, and what it says when the trigger's
// allowlist (filters.from_users) refuses that actor. A person logged in with `hub login` runs as
// one of their own names at the hub; an API key (no person) runs as the user on this machine.
import { userInfo } from 'node:os';
import type { Io } from './command.js';
import { checkCredential } from './credential-info.js';
import { CliError } from './errors.js';
import { printable } from './hub-client.js';

/** A name to dispatch as, and why it was chosen (said after "dispatched as NAME"). */
export interface Candidate {
  actor: string;
  why: string;
}

/** Where the actor came from: --actor, the person's names in the order they are tried, or this machine's user. */
export type ActorChoice =
  | { kind: 'given'; actor: string }
  | { kind: 'person'; person: string; candidates: [Candidate, ...Candidate[]] }
  | { kind: 'machine'; candidate: Candidate };

/**
 * The actor for a dispatch: --actor when given; else, for a CLI credential, the person's names
 * (account name, e-mail, the e-mail's local part); else this machine's user name. A hub that does
 * not say whose the credential is (an older one, or a credential it refuses: the dispatch then
 * says so) is treated as an API key.
 */
export async function chooseActor(
  given: string | undefined,
  session: { origin: string; token: string },
  io: Io,
): Promise<ActorChoice> {
  if (given !== undefined) return { kind: 'given', actor: given };
  const check = await checkCredential(session.origin, session.token);
  const account = check.valid === true ? check.info.account : null;
  if (account === null)
    return { kind: 'machine', candidate: { actor: machineUser(io), why: 'your user name on this machine' } };
  const local = account.email.includes('@') ? account.email.slice(0, account.email.lastIndexOf('@')) : '';
  const named: Candidate[] = [
    { actor: account.name, why: 'your name at the hub' },
    { actor: account.email, why: 'your e-mail at the hub' },
    { actor: local, why: 'the local part of your e-mail at the hub' },
  ];
  const candidates = named.filter(
    (candidate, index) =>
      candidate.actor.trim() !== '' && named.findIndex((other) => other.actor === candidate.actor) === index,
  );
  const first = candidates[0];
  if (first === undefined)
    return { kind: 'machine', candidate: { actor: machineUser(io), why: 'your user name on this machine' } };
  return {
    kind: 'person',
    person: `${account.name} (${account.email})`,
    candidates: [first, ...candidates.slice(1)],
  };
}

/** The first name the choice tries. */
export function firstActor(choice: ActorChoice): Candidate | undefined {
  if (choice.kind === 'given') return undefined;
  return choice.kind === 'person' ? choice.candidates[0] : choice.candidate;
}

/** The first of the person's names that `allowed` has: the one retry a refusal may lead to. */
export function allowedCandidate(choice: ActorChoice, allowed: readonly string[]): Candidate | undefined {
  return choice.kind === 'person'
    ? choice.candidates.find((candidate) => allowed.includes(candidate.actor))
    : undefined;
}

/**
 * The refusal of the actor, when the hub named the allowed ones: who may run `trigger`, and how
 * to run as one of them; no one, and which YAML key to fill.
 */
export function actorRefusal(trigger: string, allowed: readonly string[], choice: ActorChoice, actor: string): string {
  const name = printable(trigger);
  if (allowed.length === 0)
    return `the trigger ${name} accepts runs from no one: its filters.from_users is empty. Add the names that may run it to filters.from_users in the configuration, and deploy it again.`;
  const list = allowed.map(printable).join(', ');
  const head = `the trigger ${name} accepts runs only from: ${list}; run as one of them with --actor <name>`;
  const because =
    choice.kind === 'given'
      ? `"${printable(actor)}" is not among them.`
      : choice.kind === 'person'
        ? `You are logged in as ${printable(choice.person)}, and none of ${choice.candidates.map((candidate) => printable(candidate.actor)).join(', ')} is among them: to run it as yourself, have one added to its filters.from_users.`
        : `The actor was your user name on this machine, ${printable(actor)}: the default with an API key, which is no person's.`;
  return `${head}.\n${because}`;
}

/** The user this process runs as (USER when the system has no name for it). */
function machineUser(io: Io): string {
  try {
    return userInfo().username;
  } catch {
    const name = io.env.USER;
    if (name) return name;
    throw new CliError('Could not tell your user name on this machine: give the actor with --actor NAME.', 2);
  }
}
