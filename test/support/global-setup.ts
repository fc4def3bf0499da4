// Starts one real PostgreSQL (the embedded one `npm start` uses) for the whole jest run.
import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './embedded-server';
import { EmbeddedDatabase, startEmbeddedPostgres } from '../../src/shared/infrastructure/database/embedded-postgres';

declare global {
  var __EMBEDDED_PG__: { db: EmbeddedDatabase; dir: string } | undefined;
}

export default async function globalSetup(): Promise<void> {
  // The served OpenAPI document, fetched by the first test file that needs it (openapi-contract.ts).
  process.env.OPENAPI_CONTRACT_CACHE = mkdtempSync(join(tmpdir(), 'receivables-openapi-'));
  if (process.env.TEST_DATABASE_ADMIN_URL) return; // an outside server was given
  const dir = mkdtempSync(join(tmpdir(), 'receivables-test-pg-'));
  // mkdtemp makes it private; as root PostgreSQL runs as its own user, which keeps the cluster here when it can reach it.
  chmodSync(dir, 0o755);
  const db = await startEmbeddedPostgres(dir, await freePort(), () => undefined, {
    // Test data is disposable: skip durability for speed.
    // PostgreSQL's own max_wal_size: pg_wal of a long run stays near 1 GB, not the served 8 GB.
    settings: ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off', 'max_connections=300', 'shared_buffers=128MB', 'max_wal_size=1GB'],
    // A Ctrl-C on `npm test` (jest then skips its teardown) stops it too.
    ownSession: false,
  });
  globalThis.__EMBEDDED_PG__ = { db, dir };
  const admin = new URL(db.url);
  admin.pathname = '/postgres';
  process.env.TEST_DATABASE_ADMIN_URL = admin.toString();
}
