import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { DomainEvent } from '../../../../src/shared/domain/aggregate-root';
import { BEGIN_TRANSACTION, UnitOfWork } from '../../../../src/shared/infrastructure/database/unit-of-work';
import { OutboxWriter } from '../../../../src/shared/infrastructure/outbox/outbox.writer';

/**
 * The unit of work against a fake connection that records, in order, every statement it is sent
 * and every outbox write: what one transaction costs in round trips, and that buffering the
 * outbox loses, reorders or leaks nothing.
 */
function setup(options: { failCommitOnce?: { code: string } } = {}) {
  const log: string[] = [];
  const written: DomainEvent[][] = [];
  let failCommit = options.failCommitOnce;
  class FakeRunner {
    isTransactionActive = false;
    manager = { query: (sql: string) => this.query(sql) };
    async connect() {}
    async release() {}
    async query(sql: string): Promise<unknown[]> {
      log.push(sql);
      return [];
    }
    // What TypeORM's PostgresQueryRunner does at depth 0: START TRANSACTION, then SET … only if a level is given.
    async startTransaction(level?: string) {
      this.isTransactionActive = true;
      await this.query('START TRANSACTION');
      if (level) await this.query(`SET TRANSACTION ISOLATION LEVEL ${level}`);
    }
    async commitTransaction() {
      await this.query('COMMIT');
      if (failCommit) {
        const error = Object.assign(new Error('serialization failure'), failCommit);
        failCommit = undefined;
        throw error;
      }
    }
    async rollbackTransaction() {
      await this.query('ROLLBACK');
    }
  }
  const dataSource = { createQueryRunner: () => new FakeRunner(), manager: {} } as unknown as DataSource;
  const outbox = {
    write: async (_manager: unknown, events: DomainEvent[]) => {
      if (events.length === 0) return;
      written.push([...events]);
      log.push(`OUTBOX ${events.map((e) => e.type).join(',')}`);
    },
  } as unknown as OutboxWriter;
  return { uow: new UnitOfWork(dataSource, outbox), log, written };
}

const event = (type: string, id = 'pay_1'): DomainEvent => ({
  type,
  aggregateType: type.split('.')[0],
  aggregateId: id,
  tenantId: 'ten_1',
  occurredAt: new Date('2026-03-15T12:00:00Z'),
  data: { object: { id } },
});

describe('UnitOfWork', () => {
  it('opens a transaction with one statement that sets its isolation level', async () => {
    const { uow, log } = setup();
    await uow.run(async () => {
      await uow.query('SELECT 1');
    });
    expect(log).toEqual([BEGIN_TRANSACTION, 'SELECT 1', 'COMMIT']);
    expect(BEGIN_TRANSACTION).toBe('START TRANSACTION ISOLATION LEVEL READ COMMITTED');
  });
});
