// hub run's choice of actor, as data: which of a person's names a refusal's allowlist leads to,
// and what is said when no one may run the trigger (the hub's compiler refuses an empty
// filters.from_users today, so no hub can show that case).
import { describe, expect, it } from 'vitest';
import { actorRefusal, allowedCandidate, type ActorChoice } from '../src/run-actor.js';

const person: ActorChoice = {
  kind: 'person',
  person: 'Nina Newcomer (nina@example.com)',
  candidates: [
    { actor: 'Nina Newcomer', why: 'your name at the hub' },
    { actor: 'nina@example.com', why: 'your e-mail at the hub' },
    { actor: 'nina', why: 'the local part of your e-mail at the hub' },
  ],
};
const machine: ActorChoice = { kind: 'machine', candidate: { actor: 'runner', why: 'your user name on this machine' } };

describe("hub run's actor", () => {
  it.each([
    [['nina', 'nina@example.com'], 'nina@example.com'],
    [['dev-lead', 'nina'], 'nina'],
    [['dev-lead'], undefined],
  ])('with the allowlist %j, a person runs as %s', (allowed, actor) => {
    expect(allowedCandidate(person, allowed)?.actor).toBe(actor);
  });

  it("never takes another's name for an API key, even one the allowlist has", () => {
    expect(allowedCandidate(machine, ['runner', 'dev-lead'])).toBeUndefined();
  });

  it('an empty allowlist: no one may run it, and the YAML key to fill', () => {
    expect(actorRefusal('fix-tests', [], person, 'Nina Newcomer')).toBe(
      'the trigger fix-tests accepts runs from no one: its filters.from_users is empty. Add the names that may run it to filters.from_users in the configuration, and deploy it again.',
    );
  });
});
