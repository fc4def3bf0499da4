import { AsyncLocalStorage } from 'node:async_hooks';
import { Injectable, Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { DomainEvent } from '../../domain/aggregate-root';
import { OutboxWriter } from '../outbox/outbox.writer';

/** A handler that must be consistent with the change that raised the event (runs in the same transaction). */
export type TransactionalEventHandler = (event: DomainEvent) => Promise<void>;

interface TransactionContext {
  manager: EntityManager;
  depth: number;
}

/** PostgreSQL errors worth retrying the whole transaction for. */
const RETRYABLE = new Set(['40001', '40P01']);
const MAX_ATTEMPTS = 3;

/**
 * One transaction per command. `run()` opens it (or joins the one already open in this
 * async context), repositories take `manager()`, and `publish()` — called by repositories
 * on save — writes the aggregate's events to the outbox and runs the in-transaction
 * handlers (automatic matching) before commit. Everything else reacts from the outbox.
 */
@Injectable()
export class UnitOfWork {
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

  /** Runs raw SQL on the current transaction, or the pool when there is none. */
  query<T = any>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.manager().query(sql, params);
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.storage.getStore()) return work();
    for (let attempt = 1; ; attempt++) {
      const runner = this.dataSource.createQueryRunner();
      await runner.connect();
      await runner.startTransaction('READ COMMITTED');
      try {
        const result = await this.storage.run({ manager: runner.manager, depth: 0 }, work);
        await runner.commitTransaction();
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

  /** Registers a handler that runs inside the transaction that recorded `type`. */
  subscribe(type: string, handler: TransactionalEventHandler): void {
    const list = this.handlers.get(type) ?? [];
    list.push(handler);
    this.handlers.set(type, list);
  }

  /**
   * Called by repositories after writing an aggregate: events go to the outbox in the same
   * transaction, then the in-transaction handlers run (they may save more aggregates).
   */
  async publish(events: DomainEvent[]): Promise<void> {
    if (events.length === 0) return;
    const ctx = this.storage.getStore();
    if (!ctx) throw new Error('UnitOfWork.publish() called outside a transaction');
    await this.outbox.write(ctx.manager, events);
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
