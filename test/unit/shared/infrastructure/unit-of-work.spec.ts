import { Logger } from '@nestjs/common';
import { EventEmitter } from 'node:events';
import { DataSource } from 'typeorm';
import { DomainEvent } from '../../../../src/shared/domain/aggregate-root';
import { BEGIN_TRANSACTION, PREPARED_PER_CONNECTION, UnitOfWork } from '../../../../src/shared/infrastructure/database/unit-of-work';
import { CommitWrite, OutboxWriter } from '../../../../src/shared/infrastructure/outbox/outbox.writer';

/**
 * The unit of work against a fake connection that records, in order, every statement it is sent
 * and every outbox write: what one transaction costs in round trips, and that buffering the
 * outbox loses, reorders or leaks nothing.
 */
function setup(options: { failCommitOnce?: { code: string }; failBegin?: Error } = {}) {
  const log: string[] = [];
  const pool = { connected: 0, released: 0 };
  const written: DomainEvent[][] = [];
  const named: string[] = [];
  let failCommit = options.failCommitOnce;
  class FakeRunner {
    isTransactionActive = false;
    manager = { query: (sql: string) => this.query(sql) };
    isReleased = false;
    // The pg client the transaction's named statements go to (it emits 'error' as pg's does).
    client = Object.assign(new EventEmitter(), {
      query: async (q: { name: string; text: string } | string) => {
        if (typeof q === 'string') {
          log.push(q); // DEALLOCATE
          return { command: 'DEALLOCATE', rows: [], rowCount: null };
        }
        log.push(q.text);
        named.push(q.name);
        return { command: q.text.split(' ')[0], rows: [{ n: 1 }], rowCount: 1 };
      },
    });
    async connect() {
      if (!this.connected) pool.connected++;
      this.connected = true;
      return this.client;
    }
    connected = false;
    async release() {
      if (this.connected && !this.isReleased) pool.released++;
      this.isReleased = true;
    }
    async query(sql: string): Promise<unknown[]> {
      log.push(sql);
      if (options.failBegin && sql.startsWith('START TRANSACTION')) throw options.failBegin;
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
  const runners: FakeRunner[] = [];
  const dataSource = { createQueryRunner: () => (runners.push(new FakeRunner()), runners[runners.length - 1]), manager: {} } as unknown as DataSource;
  const outbox = {
    write: async (_manager: unknown, events: DomainEvent[], writes: CommitWrite[] = []) => {
      if (events.length === 0 && writes.length === 0) return;
      if (events.length > 0) written.push([...events]);
      log.push(`OUTBOX ${events.map((e) => e.type).join(',')}${writes.map((w) => ` + ${w.sql}`).join('')}`);
      writes.forEach((w) => w.written?.(1));
    },
  } as unknown as OutboxWriter;
  return { uow: new UnitOfWork(dataSource, outbox), log, written, named, pool, runners };
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

  it('sends a transaction\'s statements as named prepared statements, with the results shaped as TypeORM shapes them', async () => {
    const { uow, named } = setup();
    const results = await uow.run(async () => [
      await uow.query('SELECT n FROM t WHERE id = $1', [1]),
      await uow.query('UPDATE t SET n = n + 1 WHERE id = $1 RETURNING n', [1]),
      await uow.query('SELECT n FROM t WHERE id = $1', [2]),
    ]);
    // TypeORM's query() gives [rows, affected] for UPDATE and DELETE, the rows otherwise.
    expect(results).toEqual([[{ n: 1 }], [[{ n: 1 }], 1], [{ n: 1 }]]);
    expect(named[0]).toMatch(/^uow_[0-9a-f]{20}$/);
    expect(named[2]).toBe(named[0]); // one name per text: parsed and planned once per connection
    expect(named[1]).not.toBe(named[0]);
  });

  it('gives the connection back to the pool when BEGIN fails (it leaked before)', async () => {
    const terminated = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
    const { uow, pool } = setup({ failBegin: terminated });
    let ran = false;
    await expect(uow.run(async () => (ran = true))).rejects.toBe(terminated);
    expect(ran).toBe(false);
    expect(pool).toEqual({ connected: 1, released: 1 });
  });

  it('fails with the loss itself (a 503) when its connection is lost between two statements, not as "already released" (a 500)', async () => {
    const terminated = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
    const { uow, runners, pool, log } = setup();
    await expect(
      uow.run(async () => {
        await uow.query('INSERT INTO t VALUES (1)');
        // What TypeORM's runner does on its client's 'error' event: it releases itself.
        const [runner] = runners;
        runner.client.emit('error', terminated);
        await runner.release();
        await uow.query('INSERT INTO t VALUES (2)');
      }),
    ).rejects.toBe(terminated);
    expect(log).not.toContain('INSERT INTO t VALUES (2)');
    expect(log).not.toContain('COMMIT');
    expect(pool).toEqual({ connected: 1, released: 1 });
    expect(runners[0].client.listenerCount('error')).toBe(0); // the unit of work's listener is gone with the transaction
  });

  it('keeps at most PREPARED_PER_CONNECTION statements prepared per connection, DEALLOCATing the least recently used', async () => {
    const { uow, named, log } = setup();
    const hot = 'SELECT hot FROM t WHERE id = $1';
    await uow.run(async () => {
      for (let i = 0; i < PREPARED_PER_CONNECTION + 50; i++) {
        await uow.query(`SELECT ${i} FROM t WHERE id = $1`, [i]);
        await uow.query(hot, [i]); // used all along: never evicted
      }
    });
    const deallocated = log.filter((sql) => sql.startsWith('DEALLOCATE ')).map((sql) => sql.slice('DEALLOCATE '.length));
    // Every text got a name (not only the first ones), 251 distinct; the oldest cold ones were let go.
    expect(new Set(named).size).toBe(PREPARED_PER_CONNECTION + 51);
    expect(deallocated).toHaveLength(51);
    expect(new Set(deallocated).size).toBe(51);
    expect(deallocated).not.toContain(named[1]); // the hot one
    expect(deallocated[0]).toBe(named[0]); // the least recently used first
    // What stays prepared never exceeds the bound.
    const live = new Set(named.filter((n) => !deallocated.includes(n)));
    expect(live.size).toBe(PREPARED_PER_CONNECTION);
  });

  it('writes all events of a transaction to the outbox in one statement, in publication order, just before commit', async () => {
    const { uow, log, written } = setup();
    const seen: string[] = [];
    // An in-transaction handler publishing more events (as auto-matching does on payment.created).
    uow.subscribe('payment.created', async (e) => {
      seen.push(e.type);
      await uow.query('UPDATE invoices');
      await uow.publish([event('invoice.updated', 'inv_1'), event('invoice.paid', 'inv_1')]);
      await uow.publish([event('payment.matched')]);
    });
    uow.subscribe('invoice.paid', async (e) => void seen.push(e.type));
    await uow.run(async () => {
      await uow.query('INSERT INTO payments');
      await uow.publish([event('payment.created')]);
      expect(written).toEqual([]); // handlers ran at once; nothing written yet
      await uow.query('UPDATE customers');
    });
    expect(seen).toEqual(['payment.created', 'invoice.paid']);
    expect(written.map((batch) => batch.map((e) => `${e.type}:${e.aggregateId}`))).toEqual([
      ['payment.created:pay_1', 'invoice.updated:inv_1', 'invoice.paid:inv_1', 'payment.matched:pay_1'],
    ]);
    expect(log).toEqual([
      BEGIN_TRANSACTION,
      'INSERT INTO payments',
      'UPDATE invoices',
      'UPDATE customers',
      'OUTBOX payment.created,invoice.updated,invoice.paid,payment.matched',
      'COMMIT',
    ]);
  });

  it('sends the commit writes with the outbox statement just before commit, and none for a transaction that rolls back', async () => {
    const { uow, log } = setup();
    const told: number[] = [];
    await uow.run(async () => {
      uow.writeAtCommit({ sql: 'INSERT INTO idempotency_keys', params: [], written: (n) => told.push(n) });
      await uow.query('INSERT INTO payments');
      await uow.publish([event('payment.created')]);
    });
    expect(log).toEqual([BEGIN_TRANSACTION, 'INSERT INTO payments', 'OUTBOX payment.created + INSERT INTO idempotency_keys', 'COMMIT']);
    expect(told).toEqual([1]);

    log.length = 0;
    await expect(
      uow.run(async () => {
        uow.writeAtCommit({ sql: 'INSERT INTO idempotency_keys', params: [] });
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(log).toEqual([BEGIN_TRANSACTION, 'ROLLBACK']);
    expect(() => uow.writeAtCommit({ sql: 'INSERT INTO x', params: [] })).toThrow(/outside a transaction/);
  });

  it('holds back writeBehind writes and sends them with the outbox statement at commit, in order; none for a transaction that rolls back', async () => {
    const { uow, log } = setup();
    await uow.run(async () => {
      await uow.query('SELECT 1');
      await uow.writeBehind({ sql: 'UPDATE invoices', params: [] }, 'invoice:ten_1:inv_1');
      await uow.writeBehind({ sql: 'INSERT INTO payments', params: [] });
      uow.writeAtCommit({ sql: 'INSERT INTO idempotency_keys', params: [] });
      await uow.writeBehind({ sql: 'INSERT INTO ledger_entries', params: [] });
      await uow.publish([event('payment.created')]);
    });
    expect(log).toEqual([
      BEGIN_TRANSACTION,
      'SELECT 1',
      'OUTBOX payment.created + UPDATE invoices + INSERT INTO payments + INSERT INTO ledger_entries + INSERT INTO idempotency_keys',
      'COMMIT',
    ]);

    log.length = 0;
    await expect(
      uow.run(async () => {
        await uow.writeBehind({ sql: 'INSERT INTO payments', params: [] });
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(log).toEqual([BEGIN_TRANSACTION, 'ROLLBACK']);
    await expect(uow.writeBehind({ sql: 'INSERT INTO x', params: [] })).rejects.toThrow(/outside a transaction/);
  });

  it('sends the held-back writes before any other statement of the transaction: one alone, several in one statement', async () => {
    const { uow, log, named } = setup();
    const told: number[] = [];
    await uow.run(async () => {
      await uow.writeBehind({ sql: 'UPDATE invoices', params: [], written: (n) => told.push(n) });
      await uow.query('SELECT amount_paid FROM invoices'); // reads what the update wrote
      await uow.writeBehind({ sql: 'INSERT INTO payments', params: [] });
      await uow.writeBehind({ sql: 'INSERT INTO ledger_entries', params: [] });
      await uow.manager().query('SELECT balance FROM customers'); // TypeORM's path too
      await uow.writeBehind({ sql: 'INSERT INTO refunds', params: [] });
      await uow.manager().query('ROLLBACK TO SAVEPOINT typeorm_1'); // what it undoes goes first
    });
    expect(log).toEqual([
      BEGIN_TRANSACTION,
      'UPDATE invoices',
      'SELECT amount_paid FROM invoices',
      'OUTBOX  + INSERT INTO payments + INSERT INTO ledger_entries',
      'SELECT balance FROM customers',
      'INSERT INTO refunds',
      'ROLLBACK TO SAVEPOINT typeorm_1',
      'COMMIT',
    ]);
    expect(told).toEqual([1]);
    expect(named[0]).toMatch(/^uow_/); // alone: its own text, a named statement as before
  });

  it('sends what is held back before a second write of the same row (one statement would not see the first)', async () => {
    const { uow, log } = setup();
    await uow.run(async () => {
      await uow.writeBehind({ sql: 'UPDATE invoices SET a', params: [] }, 'invoice:ten_1:inv_1');
      await uow.writeBehind({ sql: 'INSERT INTO ledger_entries', params: [] });
      await uow.writeBehind({ sql: 'UPDATE invoices SET b', params: [] }, 'invoice:ten_1:inv_2');
      await uow.writeBehind({ sql: 'UPDATE invoices SET c', params: [] }, 'invoice:ten_1:inv_1');
    });
    expect(log).toEqual([
      BEGIN_TRANSACTION,
      'OUTBOX  + UPDATE invoices SET a + INSERT INTO ledger_entries + UPDATE invoices SET b',
      'OUTBOX  + UPDATE invoices SET c',
      'COMMIT',
    ]);
  });

  it('a held-back write sent alone maps its own error (failed) and checks its rows (written)', async () => {
    const { uow } = setup();
    const refused = Object.assign(new Error('violates foreign key'), { constraint: 'payments_customer_currency_fkey' });
    const mapped = new Error('mapped');
    const fail = jest.fn().mockRejectedValueOnce(refused);
    const failing = uow.run(async () => {
      const client = (await (uow as any).storage.getStore().runner.connect()) as { query: (q: unknown) => Promise<unknown> };
      const query = client.query;
      client.query = (q: unknown) => (typeof q === 'object' && (q as { text: string }).text === 'INSERT INTO payments' ? fail() : query(q));
      await uow.writeBehind({ sql: 'INSERT INTO payments', params: [], failed: (e) => (e === refused ? mapped : undefined) });
      await uow.query('SELECT 1');
    });
    await expect(failing).rejects.toBe(mapped);
    await expect(
      uow.run(async () => {
        await uow.writeBehind({ sql: 'UPDATE invoices', params: [], written: () => { throw new Error('changed concurrently'); } });
        await uow.query('SELECT 1');
      }),
    ).rejects.toThrow('changed concurrently');
  });

  it('writes nothing to the outbox for a transaction that rolls back', async () => {
    const { uow, log, written } = setup();
    await expect(
      uow.run(async () => {
        await uow.publish([event('payment.created')]);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(written).toEqual([]);
    expect(log).toEqual([BEGIN_TRANSACTION, 'ROLLBACK']);
  });

  it('writes a retried transaction’s events once, from the attempt that commits', async () => {
    const { uow, written } = setup({ failCommitOnce: { code: '40001' } });
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    let attempt = 0;
    await uow.run(async () => {
      attempt++;
      await uow.publish([event('payment.created', `pay_${attempt}`)]);
    });
    expect(attempt).toBe(2);
    // The first attempt's batch was sent and rolled back with it; the second holds only its own event.
    expect(written.map((batch) => batch.map((e) => e.aggregateId))).toEqual([['pay_1'], ['pay_2']]);
  });

  it('a nested run joins the transaction: its events are written with the outer ones, once', async () => {
    const { uow, written, log } = setup();
    await uow.run(async () => {
      await uow.publish([event('invoice.created', 'inv_1')]);
      await uow.run(async () => uow.publish([event('payment.created')]));
    });
    expect(written).toHaveLength(1);
    expect(written[0].map((e) => e.type)).toEqual(['invoice.created', 'payment.created']);
    expect(log.filter((s) => s === BEGIN_TRANSACTION)).toHaveLength(1);
  });

  it('refuses to publish outside a transaction', async () => {
    const { uow } = setup();
    await expect(uow.publish([event('payment.created')])).rejects.toThrow(/outside a transaction/);
  });

  it('remembers aggregates for the current transaction only', async () => {
    const { uow } = setup();
    const payment = { id: 'pay_1' };
    await uow.run(async () => {
      uow.remember('payment:ten_1:pay_1', payment);
      expect(uow.recall('payment:ten_1:pay_1')).toBe(payment);
      await uow.run(async () => expect(uow.recall('payment:ten_1:pay_1')).toBe(payment));
    });
    await uow.run(async () => expect(uow.recall('payment:ten_1:pay_1')).toBeUndefined());
    uow.remember('payment:ten_1:pay_1', payment);
    expect(uow.recall('payment:ten_1:pay_1')).toBeUndefined();
  });
});
