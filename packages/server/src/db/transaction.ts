import type { TransactionSql } from 'postgres';
import type { Db } from './connect.js';

/**
 * Runs `work` as one unit: in a new transaction on the pool, or, when `db` is already a
 * transaction, in a savepoint of it (an error rolls back `work` alone, and the caller's
 * transaction goes on, as it would have without it).
 */
export async function atomically<T>(db: Db, work: (tx: TransactionSql) => Promise<T>): Promise<T> {
  return ('savepoint' in db ? db.savepoint(work) : db.begin(work)) as Promise<T>;
}
