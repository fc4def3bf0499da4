import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { migrate } from '../../src/bootstrap';

const TEMPLATE = 'receivables_template';

function adminUrl(): string {
  const url = process.env.TEST_DATABASE_ADMIN_URL;
  if (!url) throw new Error('TEST_DATABASE_ADMIN_URL is not set: run the tests through jest (global setup starts PostgreSQL)');
  return url;
}

function urlFor(database: string): string {
  const url = new URL(adminUrl());
  url.pathname = `/${database}`;
  return url.toString();
}

async function withAdmin<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * A fresh, migrated database for one test file: copied from a template that the first file
 * of the run migrates (under an advisory lock, so parallel workers migrate it once).
 */
export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `test_${randomBytes(6).toString('hex')}`;
  await withAdmin(async (admin) => {
    await admin.query('SELECT pg_advisory_lock(4242)');
    try {
      const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [TEMPLATE]);
      if (exists.rowCount === 0) {
        await admin.query(`CREATE DATABASE ${TEMPLATE}`);
        await migrate(urlFor(TEMPLATE), () => undefined);
      }
      await admin.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE}`);
    } finally {
      await admin.query('SELECT pg_advisory_unlock(4242)');
    }
  });
  return {
    url: urlFor(name),
    drop: () => withAdmin((admin) => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}
