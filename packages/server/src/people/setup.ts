import type { Sql } from 'postgres';
import { AccountRepository } from './sql/accounts.js';
import { AuditRepository } from '../audit/index.js';
import { createOrganization } from '../projects/index.js';
import { setupInput } from './input.js';
import { hashPassword } from './passwords.js';
import { newSecret, secretDigest, wellFormedSecret } from './secrets.js';
import type { Sessions } from './sessions.js';

export type SetupResult =
  | { ok: true; sessionSecret: string }
  | { ok: false; reason: 'token_invalid' | 'organization_exists' | 'invalid_input' };

/** Thrown inside the setup transaction to roll it back with an answer. */
class Refused extends Error {
  constructor(readonly reason: 'token_invalid' | 'organization_exists') {
    super(reason);
  }
}

/** Whether the hub still waits for its first owner: it has no account yet. */
export async function setupPending(sql: Sql): Promise<boolean> {
  return !(await new AccountRepository(sql).anyAccount());
}

/** A new setup token while the hub has no account (any earlier one stops working); undefined once it has one. */
export async function issueSetupToken(sql: Sql): Promise<string | undefined> {
  const token = newSecret();
  return (await new AccountRepository(sql).issueSetupToken(secretDigest(token))) ? token : undefined;
}

/**
 * Spends the setup token on the first owner, their organization and their first session, all
 * in one transaction. Concurrent completions queue on the token's row: one wins, the others
 * find it consumed (`token_invalid`). A taken slug rolls everything back, the token included.
 */
export async function completeSetup(
  sql: Sql,
  sessions: Sessions,
  token: string,
  owner: { name: string; email: string; password: string },
  organization: { slug: string; name: string },
): Promise<SetupResult> {
  const input = setupInput(owner, organization);
  if (input === undefined) return { ok: false, reason: 'invalid_input' };
  if (!wellFormedSecret(token)) return { ok: false, reason: 'token_invalid' };
  const passwordHash = await hashPassword(input.account.password);
  try {
    const sessionSecret = await sql.begin(async (tx) => {
      const accounts = new AccountRepository(tx);
      if (!(await accounts.consumeSetupToken(secretDigest(token))) || (await accounts.anyAccount()))
        throw new Refused('token_invalid');
      const creation = await createOrganization(tx, input.organization);
      if (!creation.ok) throw new Refused('organization_exists');
      const created = creation.organization;
      const account = await accounts.create({ email: input.account.email, name: input.account.name, passwordHash });
      if (account === undefined) throw new Refused('token_invalid');
      await accounts.addMember(created.id, account.id, 'owner');
      await new AuditRepository(tx).memberEvent(
        created.id,
        'member.added',
        { kind: 'account', id: account.id },
        account.id,
        'owner',
      );
      return sessions.start(account.id, created.id, tx);
    });
    return { ok: true, sessionSecret };
  } catch (error) {
    if (error instanceof Refused) return { ok: false, reason: error.reason };
    throw error;
  }
}
