import type { TransactionSql } from 'postgres';
import type { Db } from '../db/connect.js';

/** `fn` in a transaction of its own on the pool, or in a savepoint of the transaction `db` is. */
export function transaction<T>(db: Db, fn: (tx: TransactionSql) => Promise<T>): Promise<T> {
  return ('begin' in db ? db.begin(fn) : db.savepoint(fn)) as Promise<T>;
}
