import { Inject, Injectable, Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { Pool, PoolClient, QueryConfig } from 'pg';
import { APP_CONFIG, AppConfig, DbTimeouts } from '../../../config/config';
import { timeoutOptions } from '../../../shared/infrastructure/database/data-source';
import { DATABASE_URL } from '../../../shared/infrastructure/database/database.tokens';
import { ServiceClient } from '../../../shared/infrastructure/database/pg-client';
import { RELAY_SETTINGS, RelaySettings } from './relay-settings';

/**
 * The relay's own small connection pool (WEBHOOK_RELAY_POOL_SIZE, default 3), separate from
 * the API's: a busy API can no longer starve deliveries of connections, and the relay cannot
 * take the API's. It is opened on first use, so an instance whose relay is off (WORKERS_ENABLED
 * =false, the CLI) holds no extra connection, and closed by the relay when it stops. A connection
 * the server terminates (restart, failover, pg_terminate_backend) is logged and replaced, never
 * an uncaught 'error' that ends the process.
 */
@Injectable()
export class RelayDatabase {
  private readonly logger = new Logger('WebhookRelayPool');
  private pool: Pool | null = null;

  constructor(
    @Inject(DATABASE_URL) private readonly databaseUrl: string,
    @Inject(RELAY_SETTINGS) private readonly settings: RelaySettings,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Rows of one statement (UPDATE … RETURNING gives the returned rows too). */
  async query<T = any>(sql: string, params: unknown[] = []): Promise<T[]> {
    const result = await this.connections().query(named(sql, params));
    return result.rows as T[];
  }

  /**
   * Runs `work` in one transaction on one connection of the relay's pool. `settings`: SET LOCAL
   * for the transaction, sent with its BEGIN in one round trip (constant names and values only:
   * they are written into the text).
   */
  async transaction<T>(
    work: (query: <R = any>(sql: string, params?: unknown[]) => Promise<R[]>) => Promise<T>,
    settings: Readonly<Record<string, string>> = {},
  ): Promise<T> {
    const client: PoolClient = await this.connections().connect();
    let broken = false;
    // A checked-out client has no pool listener: its connection dying between two statements
    // would otherwise be an uncaught 'error'. The statement in progress fails on its own.
    const lost = (error: Error) => {
      broken = true;
      this.logger.warn(`relay connection lost in a transaction: ${error.message}`);
    };
    client.on('error', lost);
    try {
      // Simple-query protocol: several statements, one round trip; the block BEGIN opens stays open after it.
      await client.query(['BEGIN', ...Object.entries(settings).map(([name, value]) => `SET LOCAL ${name} = ${value}`)].join('; '));
      try {
        const value = await work(async (sql, params = []) => (await client.query(named(sql, params))).rows);
        await client.query('COMMIT');
        return value;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => (broken = true));
        throw error;
      }
    } catch (error) {
      broken = true;
      throw error;
    } finally {
      // A connection whose transaction state is unknown is not handed out again.
      client.removeListener('error', lost);
      client.release(broken ? true : undefined);
    }
  }

  /** Size and state, for tests and the health of the relay. */
  get stats(): { total: number; idle: number; waiting: number; max: number } {
    const p = this.pool;
    return { total: p?.totalCount ?? 0, idle: p?.idleCount ?? 0, waiting: p?.waitingCount ?? 0, max: this.settings.poolSize };
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = null;
    await pool?.end().catch(() => undefined);
  }

  private connections(): Pool {
    if (!this.pool) {
      const pool = new Pool({
        connectionString: this.databaseUrl,
        max: this.settings.poolSize,
        idleTimeoutMillis: 30_000,
        connectionTimeoutMillis: 10_000,
        keepAlive: true,
        application_name: 'receivables-api:webhook-relay',
        // An 'error' listener on each connection from its creation on: a query's client handed
        // straight to a waiting transaction() has none of the pool's nor of ours (ADR 0055).
        Client: ServiceClient,
        ...relayTimeoutOptions(this.config.dbTimeouts),
      });
      // An idle connection closed by the server emits 'error' on the pool: without a handler
      // node would end the process. The pool drops that connection and opens a new one when needed.
      pool.on('error', (error) => this.logger.warn(`relay pool connection lost: ${error.message}`));
      this.pool = pool;
    }
    return this.pool;
  }
}

const names = new Map<string, string>();

/**
 * A relay statement as a named (prepared) one: the relay runs a handful of fixed texts every
 * pass, and an unnamed statement is parsed, analysed and planned each time — its claim and
 * fan-out statements cost more to plan than to run (docs/benchmarks.md, PostgreSQL CPU per
 * auto-matched payment). Named by a hash of the text, so each connection prepares each text once.
 */
function named(text: string, values: unknown[]): QueryConfig {
  let name = names.get(text);
  if (name === undefined) {
    name = `relay_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    if (names.size < 1000) names.set(text, name);
  }
  return { name, text, values };
}

/** The relay never waits longer than this on one statement, whatever DB_STATEMENT_TIMEOUT_MS says. */
const RELAY_STATEMENT_TIMEOUT_MS = 30_000;

/**
 * The relay's session timeouts: the service's DB_*_TIMEOUT_MS like every pool, except that a
 * statement is cut after 30 s at most — every relay statement is short, and one stuck behind a
 * lock must not hold the delivery loop for longer (0, "unset", gives the 30 s too).
 */
export function relayTimeoutOptions(timeouts: DbTimeouts): Record<string, number> {
  const statementMs = timeouts.statementMs > 0 ? Math.min(timeouts.statementMs, RELAY_STATEMENT_TIMEOUT_MS) : RELAY_STATEMENT_TIMEOUT_MS;
  return timeoutOptions({ ...timeouts, statementMs });
}
