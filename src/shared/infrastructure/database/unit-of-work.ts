import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { Pool, PoolClient } from 'pg';
import { DataSource, EntityManager, QueryRunner, QueryRunnerAlreadyReleasedError } from 'typeorm';
import { DomainEvent } from '../../domain/aggregate-root';
import { TransactionalEventHandler, TransactionalEvents } from '../../application/transactional-events';
import { OutboxWriter } from '../outbox/outbox.writer';

interface TransactionContext {
  runner: QueryRunner;
  manager: EntityManager;
  depth: number;
  /** Events published in this transaction, in order: written to the outbox in one statement before commit. */
  outbox: DomainEvent[];
  /** Aggregates this transaction has written or locked, by `type:tenant:id` (see `remember`). */
  identities: Map<string, object>;
  /** Run once the transaction has committed (see `afterCommit`). */
  committed: (() => void)[];
}

/** A statement text's prepared-statement name (null: sent unnamed) and whether it only reads. */
interface Statement {
  name: string | null;
  plainRead: boolean;
}

/** PostgreSQL errors worth retrying the whole transaction for. */
const RETRYABLE = new Set(['40001', '40P01']);
const MAX_ATTEMPTS = 3;
/** A read-only statement: SELECT without row locks (no data-modifying CTE can hide in it). */
const PLAIN_SELECT = /^\s*select\b/i;
const NOT_PLAIN = /\bfor\s+(update|share|no\s+key\s+update|key\s+share)\b|\b(insert|update|delete)\b|\bnextval\s*\(|\bpg_advisory|\bset_config\s*\(/i;
/** Distinct statement texts prepared per connection, at most (list queries vary with their filters, inserts with their row count). */
const MAX_PREPARED = 500;
/**
 * Every transaction's isolation level, set by its first statement. TypeORM's
 * `startTransaction(level)` sends START TRANSACTION and SET TRANSACTION ISOLATION LEVEL as two
 * round trips while the transaction holds its pooled connection; this is one.
 */
export const BEGIN_TRANSACTION = 'START TRANSACTION ISOLATION LEVEL READ COMMITTED';

/**
 * Starts the runner's transaction with BEGIN_TRANSACTION. TypeORM keeps the transaction's
 * state (active, depth) and its subscribers' events; only the text of its one START
 * TRANSACTION statement is replaced, and no level is passed, so no SET statement follows.
 */
export async function beginTransaction(runner: QueryRunner): Promise<void> {
  const own = Object.prototype.hasOwnProperty.call(runner, 'query');
  const query = runner.query;
  runner.query = ((sql: string, ...rest: unknown[]) =>
    (query as (...args: unknown[]) => Promise<unknown>).call(runner, sql === 'START TRANSACTION' ? BEGIN_TRANSACTION : sql, ...rest)) as QueryRunner['query'];
  try {
    await runner.startTransaction();
  } finally {
    if (own) runner.query = query;
    else delete (runner as { query?: unknown }).query;
  }
}

/**
 * One transaction per command. `run()` opens it (or joins the one already open in this
 * async context), repositories take `manager()`, and `publish()` — called by repositories
 * on save — writes the aggregate's events to the outbox and runs the in-transaction
 * handlers (automatic matching) before commit. Everything else reacts from the outbox.
 */
@Injectable()
export class UnitOfWork implements TransactionalEvents {
  private readonly logger = new Logger(UnitOfWork.name);
  private readonly storage = new AsyncLocalStorage<TransactionContext>();
  private readonly handlers = new Map<string, TransactionalEventHandler[]>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly outbox: OutboxWriter,
  ) {}

  /** The transaction's manager inside `run()`, the pool's outside it (plain reads). */
  manager(): EntityManager {
    return this.storage.getStore()?.manager ?? this.dataSource.manager;
  }

  inTransaction(): boolean {
    return this.storage.getStore() !== undefined;
  }

  /**
   * Runs raw SQL on the current transaction, or the pool when there is none, as a named prepared
   * statement: PostgreSQL parses and plans a text once per connection instead of on every
   * execution (planning alone was about a fifth of the database's time for an auto-matched
   * payment, pg_stat_statements). Outside a transaction only plain SELECTs (the query handlers'
   * reads) take this path, straight to the pg pool; inside one every statement does, on the
   * transaction's connection. Rows and errors are the same either way (the same pg driver and
   * type parsers); results keep the shape TypeORM's `query()` gives them.
   */
  async query<T = any>(sql: string, params: unknown[] = []): Promise<T[]> {
    const ctx = this.storage.getStore();
    const statement = this.statement(sql);
    if (ctx) return statement.name === null ? ctx.manager.query(sql, params) : this.prepared(ctx.runner, statement.name, sql, params);
    if (statement.name === null || !statement.plainRead) return this.dataSource.manager.query(sql, params);
    const result = await this.pool().query<T & object>({ name: statement.name, text: sql, values: params });
    return result.rows;
  }

  private readonly statements = new Map<string, Statement>();
  private pgPool?: Pool;

  /** A text's prepared-statement name (the first MAX_PREPARED texts get one) and whether it only reads. */
  private statement(sql: string): Statement {
    const known = this.statements.get(sql);
    if (known) return known;
    const statement: Statement = { name: null, plainRead: PLAIN_SELECT.test(sql) && !NOT_PLAIN.test(sql) };
    if (this.statements.size < MAX_PREPARED) {
      statement.name = `uow_${createHash('sha1').update(sql).digest('hex').slice(0, 20)}`;
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** A named statement on the transaction's connection, its result shaped like TypeORM's ([rows, count] for UPDATE and DELETE). */
  private async prepared(runner: QueryRunner, name: string, sql: string, params: unknown[]): Promise<any> {
    if (runner.isReleased) throw new QueryRunnerAlreadyReleasedError();
    const client = (await runner.connect()) as PoolClient;
    const raw = await client.query({ name, text: sql, values: params });
    return raw.command === 'UPDATE' || raw.command === 'DELETE' ? [raw.rows, raw.rowCount] : raw.rows;
  }

  /** The pg pool TypeORM itself draws connections from (one pool, one size limit). */
  private pool(): Pool {
    this.pgPool ??= (this.dataSource.driver as unknown as { master: Pool }).master;
    return this.pgPool;
  }

  /**
   * Runs independent reads concurrently on the pool, or one after another inside a transaction,
   * whose single connection cannot run two queries at once.
   */
  async all<T extends readonly unknown[]>(tasks: { [K in keyof T]: () => Promise<T[K]> }): Promise<T> {
    if (!this.inTransaction()) return Promise.all(tasks.map((task) => task())) as unknown as Promise<T>;
    const results: unknown[] = [];
    for (const task of tasks) results.push(await task());
    return results as unknown as T;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.storage.getStore()) return work();
    for (let attempt = 1; ; attempt++) {
      const runner = this.dataSource.createQueryRunner();
      await runner.connect();
      await beginTransaction(runner);
      try {
        const ctx: TransactionContext = { runner, manager: runner.manager, depth: 0, outbox: [], identities: new Map(), committed: [] };
        const result = await this.storage.run(ctx, work);
        await this.outbox.write(runner.manager, ctx.outbox);
        await runner.commitTransaction();
        for (const callback of ctx.committed) callback();
        return result;
      } catch (error) {
        await runner.rollbackTransaction().catch(() => undefined);
        const code = (error as { code?: string }).code;
        if (code && RETRYABLE.has(code) && attempt < MAX_ATTEMPTS) {
          this.logger.warn(`transaction retried after ${code} (attempt ${attempt})`);
          continue;
        }
        throw error;
      } finally {
        await runner.release();
      }
    }
  }

  /**
   * Identity map of the current transaction: a repository remembers an aggregate whose row this
   * transaction holds locked (e.g. one it has just inserted: no other transaction can see or lock
   * that row before commit), and a later `find…ForUpdate` in the same transaction is answered
   * with that very instance instead of a round trip. Forgotten with the transaction (commit,
   * rollback or retry). Outside a transaction nothing is remembered.
   */
  remember(key: string, aggregate: object): void {
    this.storage.getStore()?.identities.set(key, aggregate);
  }

  recall<T extends object>(key: string): T | undefined {
    return this.storage.getStore()?.identities.get(key) as T | undefined;
  }

  /**
   * Runs `callback` once the current transaction has committed (never if it rolls back), e.g. to
   * wake a worker for rows it could not see before; at once outside a transaction.
   */
  afterCommit(callback: () => void): void {
    const ctx = this.storage.getStore();
    if (ctx) ctx.committed.push(callback);
    else callback();
  }

  /** Registers a handler that runs inside the transaction that recorded `type`. */
  subscribe(type: string, handler: TransactionalEventHandler): void {
    const list = this.handlers.get(type) ?? [];
    list.push(handler);
    this.handlers.set(type, list);
  }

  /**
   * Called by repositories after writing an aggregate: the in-transaction handlers run now
   * (they may save more aggregates), and the events go to the outbox in the same transaction.
   * The outbox rows of a whole transaction are written together, in publication order, as one
   * statement just before commit (one round trip instead of one per save); they commit or roll
   * back with the change like before, and nothing reads the outbox inside the transaction.
   */
  async publish(events: DomainEvent[]): Promise<void> {
    if (events.length === 0) return;
    const ctx = this.storage.getStore();
    if (!ctx) throw new Error('UnitOfWork.publish() called outside a transaction');
    ctx.outbox.push(...events);
    if (ctx.depth > 8) throw new Error('in-transaction event handlers recursed too deeply');
    for (const event of events) {
      for (const handler of this.handlers.get(event.type) ?? []) {
        ctx.depth++;
        try {
          await handler(event);
        } finally {
          ctx.depth--;
        }
      }
    }
  }
}
