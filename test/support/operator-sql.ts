import { Client } from 'pg';

export interface SqlError {
  code?: string;
  constraint?: string;
  message: string;
}

/**
 * Runs statements in one transaction on a connection of its own, as an operator typing SQL would
 * (no service code, no recount flag); returns the error that ended it (at a statement or at
 * COMMIT, where the deferred guards run), or null when it committed.
 */
export async function operatorTransaction(databaseUrl: string, ...statements: [string, unknown[]?][]): Promise<SqlError | null> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    for (const [sql, params] of statements) await client.query(sql, params ?? []);
    await client.query('COMMIT');
    return null;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    return error as SqlError;
  } finally {
    await client.end();
  }
}
