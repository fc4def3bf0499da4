import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { Pool, PoolClient } from 'pg';
import { DataSource, EntityManager, QueryRunner, QueryRunnerAlreadyReleasedError } from 'typeorm';
import { DomainEvent } from '../../domain/aggregate-root';
import { TransactionalEventHandler, TransactionalEvents } from '../../application/transactional-events';
import { CommitWrite, failure, OutboxWriter } from '../outbox/outbox.writer';
import { databaseFailure } from './database-errors';
import { arrayParameter } from './pg-array';

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
  /** Written with the outbox's statement, just before commit (see `writeAtCommit`). */
  atCommit: CommitWrite[];
  /** Held back until the transaction's next statement or its commit (see `writeBehind`), with their rows' keys. */
  pending: CommitWrite[];
  pendingKeys: Set<string>;
}

/** A statement text's prepared-statement name and whether it only reads. */
interface Statement {
  name: string;
  plainRead: boolean;
}

/** PostgreSQL errors worth retrying the whole transaction for. */
const RETRYABLE = new Set(['40001', '40P01']);
const MAX_ATTEMPTS = 3;
/** A read-only statement: SELECT without row locks (no data-modifying CTE can hide in it). */
const PLAIN_SELECT = /^\s*select\b/i;
const NOT_PLAIN = /\bfor\s+(update|share|no\s+key\s+update|key\s+share)\b|\b(insert|update|delete)\b|\bnextval\s*\(|\bpg_advisory|\bset_config\s*\(/i;
/**
 * Named statements kept prepared per connection, at most: beyond, the least recently used one is
 * DEALLOCATEd first (one round trip, only once a connection holds this many). List queries vary
 * with their filters and multi-row inserts with their row count, so the set of texts is not
 * bounded; hot texts stay prepared, rare ones come and go (docs/adr/0030).
 */
export const PREPARED_PER_CONNECTION = 200;
/** Statement texts whose name and kind this process remembers (least recently used forgotten: it only costs a hash). */
const TEXTS_REMEMBERED = 2_000;

/** The prepared statements of each pooled connection, least recently used first. */
const preparedOn = new WeakMap<object, Map<string, true>>();
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

type NamedClient = Pick<PoolClient, 'query'> & { connection?: { parsedStatements?: Record<string, string> } };

/**
 * Makes every statement TypeORM sends on the runner (its manager's reads and writes, SAVEPOINT…)
 * send the unit of work's held-back writes first, as `query()` does (ROLLBACK TO SAVEPOINT too); not ROLLBACK, which drops them.
 */
function flushFirst(runner: QueryRunner, flush: () => Promise<void>): void {
  const query = runner.query;
  runner.query = (async (sql: string, ...rest: unknown[]) => {
    if (!/^\s*ROLLBACK\s*$/i.test(sql)) await flush();
    return (query as (...args: unknown[]) => Promise<unknown>).call(runner, sql, ...rest);
  }) as QueryRunner['query'];
}

/**
 * Runs `sql` as the named statement `name` on `client`, keeping at most PREPARED_PER_CONNECTION
 * statements prepared on that connection: before preparing one more, the least recently used is
 * DEALLOCATEd and node-postgres is told it is gone (its per-connection record of parsed
 * statements, which decides whether to send Parse again).
 */
async function runNamed(client: PoolClient, name: string, sql: string, params: unknown[]) {
  const named = client as unknown as NamedClient;
  let lru = preparedOn.get(client);
  if (!lru) preparedOn.set(client, (lru = new Map()));
  if (lru.delete(name)) lru.set(name, true);
  else {
    for (const victim of lru.keys()) {
      if (lru.size < PREPARED_PER_CONNECTION) break;
      try {
        await named.query(`DEALLOCATE ${victim}`);
      } catch (error) {
        // 26000: not prepared after all (its Parse failed). Anything else (an aborted transaction):
        // keep it for now, the statement below fails the same way.
        if ((error as { code?: string }).code !== '26000') break;
      }
      lru.delete(victim);
      if (named.connection?.parsedStatements) delete named.connection.parsedStatements[victim];
    }
    lru.set(name, true);
  }
  // Plain arrays written out here, as node-postgres would, only faster (ADR 0053).
  return client.query({ name, text: sql, values: params.map(arrayParameter) });
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
    if (ctx) {
      await this.flush(ctx);
      return this.prepared(ctx.runner, statement.name, sql, params);
    }
    if (!statement.plainRead) return this.dataSource.manager.query(sql, params);
    const client = await this.pool().connect();
    // A connection lost while checked out reports an 'error' event; the pool's listener is off meanwhile.
    const lost = () => undefined;
    client.on('error', lost);
    let failure: unknown;
    try {
      return (await runNamed(client, statement.name, sql, params)).rows;
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      client.off('error', lost);
      // A connection that failed is dropped, not handed to the next query (as pool.query does).
      client.release(failure instanceof Error && databaseFailure(failure) === 'unavailable' ? failure : undefined);
    }
  }

  private readonly statements = new Map<string, Statement>();
  private pgPool?: Pool;

  /** A text's prepared-statement name (a hash of the text) and whether it only reads. */
  private statement(sql: string): Statement {
    const known = this.statements.get(sql);
    if (known) {
      this.statements.delete(sql);
      this.statements.set(sql, known);
      return known;
    }
    const statement: Statement = {
      name: `uow_${createHash('sha1').update(sql).digest('hex').slice(0, 20)}`,
      plainRead: PLAIN_SELECT.test(sql) && !NOT_PLAIN.test(sql),
    };
    if (this.statements.size >= TEXTS_REMEMBERED) this.statements.delete(this.statements.keys().next().value!);
    this.statements.set(sql, statement);
    return statement;
  }

  /** A named statement on the transaction's connection, its result shaped like TypeORM's ([rows, count] for UPDATE and DELETE). */
  private async prepared(runner: QueryRunner, name: string, sql: string, params: unknown[]): Promise<any> {
    const raw = await this.preparedRaw(runner, name, sql, params);
    return raw.command === 'UPDATE' || raw.command === 'DELETE' ? [raw.rows, raw.rowCount] : raw.rows;
  }

  private async preparedRaw(runner: QueryRunner, name: string, sql: string, params: unknown[]) {
    if (runner.isReleased) throw new QueryRunnerAlreadyReleasedError();
    const client = (await runner.connect()) as PoolClient;
    return runNamed(client, name, sql, params);
  }

  /**
   * Sends the writes held back (writeBehind) before the transaction's next statement: one alone as
   * its own text, several as one statement (OutboxWriter's combination, without events).
   */
  private async flush(ctx: TransactionContext): Promise<void> {
    if (ctx.pending.length === 0) return;
    const writes = ctx.pending.splice(0);
    ctx.pendingKeys.clear();
    if (writes.length > 1) return this.outbox.write(this.runnerOf(ctx.runner), [], writes);
    const [w] = writes;
    let rows: number;
    try {
      const raw = await this.preparedRaw(ctx.runner, this.statement(w.sql).name, w.sql, w.params);
      rows = raw.rowCount ?? raw.rows.length;
    } catch (error) {
      throw failure(error, writes);
    }
    w.written?.(rows);
  }

  /** Runs a statement on the transaction's connection as a named prepared statement. */
  private runnerOf(runner: QueryRunner) {
    return (sql: string, params: unknown[]) => this.prepared(runner, this.statement(sql).name, sql, params);
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
      // The connection lost while no statement ran on it (an 'error' event): TypeORM then releases
      // the runner, and the next statement would fail as "already released", a 500. The request
      // fails with the loss itself instead, a 503 (ADR 0055); PostgreSQL rolled the transaction back.
      let lost: Error | undefined;
      const onLost = (error: Error) => (lost ??= error);
      let client: PoolClient | undefined;
      try {
        client = (await runner.connect()) as PoolClient;
        client.on('error', onLost);
        // Inside the try: a BEGIN that fails (a connection the server just closed) still gives
        // the pooled connection back, or the pool would shrink by one for good.
        await beginTransaction(runner);
        const ctx: TransactionContext = {
          runner, manager: runner.manager, depth: 0, outbox: [], identities: new Map(), committed: [], atCommit: [], pending: [], pendingKeys: new Set(),
        };
        flushFirst(runner, () => this.flush(ctx));
        const result = await this.storage.run(ctx, work);
        // The writes held back go out with the outbox's rows and the commit writes: one statement.
        const writes = [...ctx.pending.splice(0), ...ctx.atCommit];
        ctx.pendingKeys.clear();
        await this.outbox.write(this.runnerOf(runner), ctx.outbox, writes);
        await runner.commitTransaction();
        for (const callback of ctx.committed) callback();
        return result;
      } catch (error) {
        if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
        if (lost) throw lost;
        const code = (error as { code?: string }).code;
        if (code && RETRYABLE.has(code) && attempt < MAX_ATTEMPTS) {
          this.logger.warn(`transaction retried after ${code} (attempt ${attempt})`);
          continue;
        }
        throw error;
      } finally {
        client?.off('error', onLost);
        await runner.release().catch(() => undefined);
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

  /**
   * A write nothing in the transaction reads back (an idempotent request's stored response), sent
   * in one statement with the outbox's rows just before commit instead of a round trip of its own
   * (CommitWrite). Not written if the transaction rolls back before; a retried transaction writes
   * only what its own attempt registered.
   */
  writeAtCommit(write: CommitWrite): void {
    const ctx = this.storage.getStore();
    if (!ctx) throw new Error('UnitOfWork.writeAtCommit() called outside a transaction');
    ctx.atCommit.push(write);
  }

  /**
   * A write of rows nothing in this transaction reads before its next statement (new rows, or a
   * row this transaction holds locked): held back and sent together with the writes held back
   * after it, before the transaction's next statement of any kind (a read sees it), or with the
   * outbox's statement at commit — one round trip for all of them instead of one each. Writes
   * sent together do not see one another's rows (one statement, one snapshot), so each must
   * stand alone: `key` names the row it changes, and a second write of the same row first sends
   * what is held back. Their triggers and key checks run at the end of the statement they went
   * out in; `failed` maps that statement's error, `written` checks the rows returned. Not sent
   * if the transaction rolls back first.
   */
  async writeBehind(write: CommitWrite, key?: string): Promise<void> {
    const ctx = this.storage.getStore();
    if (!ctx) throw new Error('UnitOfWork.writeBehind() called outside a transaction');
    if (key !== undefined && ctx.pendingKeys.has(key)) await this.flush(ctx);
    ctx.pending.push(write);
    if (key !== undefined) ctx.pendingKeys.add(key);
  }

  /** Registers a handler that runs inside the transaction that recorded `type`. */
  subscribe(type: string, handler: TransactionalEventHandler): void {
    const list = this.handlers.get(type) ?? [];
    list.push(handler);
    this.handlers.set(type, list);
  }

  /**
   * Appends events to the transaction's outbox without running the in-transaction handlers: for
   * a caller that has itself done what they would do (the set-wise cash application of a bank
   * import group, which matches its payments itself instead of on each payment.created).
   */
  enqueue(events: DomainEvent[]): void {
    if (events.length === 0) return;
    const ctx = this.storage.getStore();
    if (!ctx) throw new Error('UnitOfWork.enqueue() called outside a transaction');
    ctx.outbox.push(...events);
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
