import { Logger } from '@nestjs/common';
import { DataSource, DataSourceOptions } from 'typeorm';
import { DbTimeouts } from '../../../config/config';
import { MIGRATIONS } from '../../../migrations';
import { Figure, figure } from '../../domain/figure';
import { ServiceClient } from './pg-client';

const poolLogger = new Logger('Database');

/**
 * TypeORM connection options. The schema comes only from migrations (never `synchronize`).
 * bigint columns come back from `pg` as strings; mappers convert them with `toSafeNumber`.
 */
/**
 * A pool's session timeouts, as connection parameters (sent at connect, so they hold for every
 * statement of the session and take precedence over the role's and the server's defaults). 0
 * leaves one unset: the role's or the server's default applies (docs/adr/0030).
 */
export function timeoutOptions(timeouts: DbTimeouts | undefined): Record<string, number> {
  if (!timeouts) return {};
  const options: Record<string, number> = {};
  if (timeouts.statementMs > 0) options.statement_timeout = timeouts.statementMs;
  if (timeouts.lockMs > 0) options.lock_timeout = timeouts.lockMs;
  if (timeouts.idleInTransactionMs > 0) options.idle_in_transaction_session_timeout = timeouts.idleInTransactionMs;
  return options;
}

/**
 * @param timeouts the service's pools pass DB_*_TIMEOUT_MS; migrations pass none (a migration
 *   on a large table may rightly run for minutes).
 */
export function dataSourceOptions(
  url: string,
  poolSize: number,
  entities: DataSourceOptions['entities'] = [],
  timeouts?: DbTimeouts,
): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities,
    migrations: MIGRATIONS,
    migrationsTableName: 'schema_migrations',
    synchronize: false,
    logging: false,
    // ServiceClient: an 'error' listener on every connection from its creation on (ADR 0055).
    extra: { Client: ServiceClient, max: poolSize, connectionTimeoutMillis: 10_000, application_name: 'receivables-api', ...timeoutOptions(timeouts) },
    // An idle pooled connection that PostgreSQL closed (terminated, restarted): the pool drops it
    // and connects anew for the next query. This listener keeps the event from ending the process.
    poolErrorHandler: (error: Error) => poolLogger.warn(`pool: idle connection lost (${error.message})`),
  };
}

/**
 * Runs pending migrations under an advisory lock, so that several instances starting
 * together apply each migration exactly once.
 */
export async function runMigrations(dataSource: DataSource): Promise<string[]> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock(727274)');
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return applied.map((m) => m.name);
  } finally {
    await runner.query('SELECT pg_advisory_unlock(727274)').catch(() => undefined);
    await runner.release();
  }
}

/** pg returns bigint and numeric as strings; money must stay an exact integer. */
export function toSafeNumber(value: string | number | null | undefined): number {
  if (value === null || value === undefined) return 0;
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isSafeInteger(n)) throw new RangeError(`value ${value} is not a safe integer`);
  return n;
}

/** A bigint or numeric sum from pg (a string), exact whatever its size (shared/domain/figure.ts). */
export function toFigure(value: string | number | null | undefined): Figure {
  return figure(BigInt(value ?? 0));
}

export function toNullableNumber(value: string | number | null | undefined): number | null {
  return value === null || value === undefined ? null : toSafeNumber(value);
}
