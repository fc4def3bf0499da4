import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { DomainEvent } from '../../domain/aggregate-root';
import { CommitWrite, combinedOutboxStatement, OUTBOX_INSERT_SQL, outboxInsertParams } from './outbox.sql';

export type { CommitWrite } from './outbox.sql';
export { combinedOutboxStatement, OUTBOX_CHANNEL, OUTBOX_INSERT_SQL } from './outbox.sql';

/** The error a write of `writes` makes of `error` (CommitWrite.failed), or `error` itself. */
export function failure(error: unknown, writes: readonly CommitWrite[]): unknown {
  for (const w of writes) {
    const mapped = w.failed?.(error);
    if (mapped !== undefined) return mapped;
  }
  return error;
}

/**
 * Appends events to the transactional outbox. The rows commit or roll back with the change
 * that produced them; `pg_notify` is delivered only on commit and wakes the relay.
 */
@Injectable()
export class OutboxWriter {
  /**
   * `target`: a manager, or the unit of work's runner of prepared statements on its transaction.
   * `writes`: the transaction's commit writes, sent in the same statement (one round trip).
   */
  async write(
    target: EntityManager | ((sql: string, params: unknown[]) => Promise<unknown>),
    events: DomainEvent[],
    writes: readonly CommitWrite[] = [],
  ): Promise<void> {
    if (events.length === 0 && writes.length === 0) return;
    const run = (sql: string, params: unknown[]) => (typeof target === 'function' ? target(sql, params) : target.query(sql, params));
    if (writes.length === 0) {
      await run(OUTBOX_INSERT_SQL, outboxInsertParams(events));
      return;
    }
    const { sql, params } = combinedOutboxStatement(events, writes);
    const [row] = (await run(sql, params).catch((error: unknown) => {
      throw failure(error, writes);
    })) as Record<string, number>[];
    writes.forEach((w, i) => w.written?.(row[`w${i}`]));
  }
}
