import { DomainEvent } from '../../../../src/shared/domain/aggregate-root';
import { combinedOutboxStatement, OutboxWriter, OUTBOX_INSERT_SQL } from '../../../../src/shared/infrastructure/outbox/outbox.writer';

const event = (type: string): DomainEvent => ({
  type,
  aggregateType: 'payment',
  aggregateId: 'pay_1',
  tenantId: 'ten_1',
  occurredAt: new Date('2026-03-15T12:00:00Z'),
  data: { object: { id: 'pay_1' } },
});

/** The unit of work's commit writes (UnitOfWork.writeAtCommit) go out with the outbox's rows, in one statement. */
describe('OutboxWriter with commit writes', () => {
  const write = { sql: 'INSERT INTO k (a, b) VALUES ($1, $2) ON CONFLICT (a) DO UPDATE SET b = $2 RETURNING 1', params: ['x', 'y'] };

  it('one statement: the outbox rows first ($1-$7), each write a CTE with its parameters renumbered after them', () => {
    const { sql, params } = combinedOutboxStatement([event('payment.created')], [
      { ...write, written: () => undefined },
      { sql: 'UPDATE t SET n = $1 RETURNING 1', params: [3], written: () => undefined },
    ]);
    expect(sql.replace(/\s+/g, ' ')).toBe(
      'WITH written AS ( INSERT INTO outbox (tenant_id, id, type, aggregate_type, aggregate_id, data, created_at, published_at) ' +
        'SELECT r.*, CASE WHEN r.tenant_id = ($1::text[])[1] THEN (SELECT outbox_published_at(($1::text[])[1])) ELSE outbox_published_at(r.tenant_id) END ' +
        'FROM ROWS FROM (unnest($1::text[]), unnest($2::text[]), unnest($3::text[]), unnest($4::text[]), unnest($5::text[]), ' +
        'jsonb_array_elements($6::jsonb), unnest($7::timestamptz[])) AS r (tenant_id, id, type, aggregate_type, aggregate_id, data, created_at) ' +
        'RETURNING published_at IS NULL AS unpublished), ' +
        'w0 AS (INSERT INTO k (a, b) VALUES ($8, $9) ON CONFLICT (a) DO UPDATE SET b = $9 RETURNING 1), ' +
        'w1 AS (UPDATE t SET n = $10 RETURNING 1) ' +
        "SELECT (SELECT pg_notify('outbox', '') FROM written WHERE unpublished LIMIT 1) AS notified, (SELECT count(*) FROM w0)::int AS w0, (SELECT count(*) FROM w1)::int AS w1",
    );
    expect(params).toHaveLength(10);
    expect(params.slice(7)).toEqual(['x', 'y', 3]);
    // The events' data: one JSON array, each event's data an element (ADR 0053).
    expect(JSON.parse(params[5] as string)).toEqual([{ object: { id: 'pay_1' } }]);
  });

  it('refuses an event without data (the column is NOT NULL; a JSON array would hold it as null)', () => {
    expect(() => combinedOutboxStatement([{ ...event('payment.created'), data: undefined as unknown as DomainEvent['data'] }], [])).toThrow(/has no data/);
  });

  it('without events: the writes alone, and no NOTIFY', () => {
    const { sql, params } = combinedOutboxStatement([], [{ ...write, written: () => undefined }]);
    expect(sql.replace(/\s+/g, ' ')).toBe(
      'WITH w0 AS (INSERT INTO k (a, b) VALUES ($1, $2) ON CONFLICT (a) DO UPDATE SET b = $2 RETURNING 1) SELECT (SELECT count(*) FROM w0)::int AS w0',
    );
    expect(params).toEqual(['x', 'y']);
  });

  it('counts the rows of the writes that ask (written) only: the others need no RETURNING', () => {
    const ledger = { sql: 'INSERT INTO ledger_entries (a) VALUES ($1)', params: [1] };
    expect(combinedOutboxStatement([], [ledger, { ...ledger }]).sql.replace(/\s+/g, ' ')).toBe(
      'WITH w0 AS (INSERT INTO ledger_entries (a) VALUES ($1)), w1 AS (INSERT INTO ledger_entries (a) VALUES ($2)) SELECT 1 AS written',
    );
    expect(combinedOutboxStatement([event('payment.created')], [ledger]).sql.replace(/\s+/g, ' ')).toMatch(
      /, w0 AS \(INSERT INTO ledger_entries \(a\) VALUES \(\$8\)\) SELECT \(SELECT pg_notify\('outbox', ''\) FROM written WHERE unpublished LIMIT 1\) AS notified$/,
    );
  });

  it('gives the statement\'s error to the writes\' failed(), the first that claims it mapping it', async () => {
    const refused = Object.assign(new Error('fk'), { constraint: 'payments_customer_currency_fkey' });
    const mapped = new Error('mapped');
    const run = async () => {
      throw refused;
    };
    await expect(
      new OutboxWriter().write(run, [event('payment.created')], [{ ...write, failed: () => undefined }, { ...write, failed: (e) => (e === refused ? mapped : undefined) }]),
    ).rejects.toBe(mapped);
    await expect(new OutboxWriter().write(run, [], [write])).rejects.toBe(refused);
  });

  it('tells each write how many rows it returned; one that throws fails the statement\'s caller', async () => {
    const seen: number[] = [];
    const sent: string[] = [];
    const run = async (sql: string) => {
      sent.push(sql);
      return [{ notified: '', w0: 1, w1: 0 }];
    };
    await new OutboxWriter().write(run, [event('payment.created')], [
      { ...write, written: (n) => seen.push(n) },
      { ...write, written: (n) => seen.push(n) },
    ]);
    expect(seen).toEqual([1, 0]);
    expect(sent).toHaveLength(1);
    await expect(
      new OutboxWriter().write(run, [], [{ ...write }, { ...write, written: (n) => { if (n === 0) throw new Error('refused'); } }]),
    ).rejects.toThrow('refused');
  });

  it('without commit writes the outbox statement is the one text it always was', async () => {
    const sent: string[] = [];
    await new OutboxWriter().write(async (sql) => void sent.push(sql), [event('payment.created')]);
    expect(sent).toEqual([OUTBOX_INSERT_SQL]);
  });
});
