import { Client } from 'pg';
import { customerSummaryRefreshSql } from '../../../src/migrations/1763800400000-customer-summary';
import { CUSTOMER_FIGURES_AT_COMMIT, RECOUNT_FIGURES_SQL, recountBalanceAndOverdueSql, recountReceivableTotalsSql } from '../../../src/modules/customers/infrastructure/customer-figures.sql';
import { FixedClock } from '../../../src/shared/domain/clock';
import { operatorTransaction } from '../../support/operator-sql';
import { TestApp, TestTenant } from '../../support/test-app';
import { completed, postFile } from '../bank-statements/support';
import { Receivables } from '../payments/support';

const TODAY = '2026-06-30';

/**
 * ADR 45: a transaction that says so (CUSTOMER_FIGURES_AT_COMMIT: a bank import group) moves each
 * customer's figures once, at commit, instead of once per statement; the figures are those the
 * per-statement path leaves; it cannot commit without moving them; transactions of both kinds
 * committing in parallel leave figures equal to a recount.
 */
describe('customer figures moved once per transaction, at commit', () => {
  const clock = new FixedClock(new Date(`${TODAY}T12:00:00Z`));
  let app: TestApp;
  let t: TestTenant;
  let r: Receivables;

  beforeAll(async () => {
    app = await TestApp.start({ clock, env: { BANK_IMPORT_POLL_MS: '50', BANK_IMPORT_GROUP_SIZE: '50', BANK_IMPORT_STREAMS: '1' } });
    t = await app.createTenant();
    r = new Receivables(app, t);
    // Every write of a customer row, with the transaction that made it (a test's own trigger).
    await app.query(`CREATE TABLE test_customer_writes (xid xid8 NOT NULL, tenant_id text NOT NULL, customer_id text NOT NULL)`);
    await app.query(`
      CREATE FUNCTION test_customer_writes() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO test_customer_writes VALUES (pg_current_xact_id(), NEW.tenant_id, NEW.id);
        RETURN NULL;
      END $$`);
    await app.query(`CREATE TRIGGER test_customer_writes AFTER UPDATE ON customers FOR EACH ROW EXECUTE FUNCTION test_customer_writes()`);
  });
  afterAll(() => app.close());

  const transaction = (...statements: [string, unknown[]?][]) => operatorTransaction(app.databaseUrl, ...statements);

  const figures = async (id: string) =>
    (
      await app.query(
        `SELECT balance::int, overdue_amount::int, overdue_as_of::text, overdue_refresh_on::text, total_invoiced::int, paid_invoice_count,
                paid_days_sum::int, total_paid::int, last_payment_date::text, total_written_off::int
           FROM customers WHERE tenant_id = $1 AND id = $2`,
        [t.tenant_id, id],
      )
    )[0];

  /** The most writes of one customer row by one transaction since `since` (a pg_current_xact_id), per customer. */
  const writesPerTransaction = async (customers: string[], since: string) =>
    Object.fromEntries(
      (
        await app.query(
          `SELECT customer_id, max(n)::int AS n FROM (SELECT customer_id, count(*) AS n FROM test_customer_writes
             WHERE tenant_id = $1 AND customer_id = ANY($2) AND xid > $3::xid8 GROUP BY xid, customer_id) w GROUP BY customer_id`,
          [t.tenant_id, customers, since],
        )
      ).map((w: { customer_id: string; n: number }) => [w.customer_id, w.n]),
    );
  const now = async () => (await app.query(`SELECT pg_current_xact_id()::text AS x`))[0].x as string;

  /**
   * Stored figures of every customer of the tenant equal a recount from their rows (overdue_refresh_on
   * is a day on which they may be stale "or earlier": compared with the per-statement path instead).
   */
  const expectFiguresEqualRecount = async () => {
    const all = `SELECT id, balance::text, overdue_amount::text, total_invoiced::text, paid_invoice_count, paid_days_sum::text,
                        total_paid::text, last_payment_id, last_payment_date::text, total_written_off::text
                   FROM customers WHERE tenant_id = $1 ORDER BY id`;
    const stored = await app.query(all, [t.tenant_id]);
    expect(await transaction([RECOUNT_FIGURES_SQL], [recountBalanceAndOverdueSql('$1'), [t.tenant_id]], [customerSummaryRefreshSql('$1'), [t.tenant_id]], [recountReceivableTotalsSql('$1'), [t.tenant_id]])).toBeNull();
    expect(await app.query(all, [t.tenant_id])).toEqual(stored);
  };

  /** A customer with overdue figures as of TODAY and four invoices: one overdue, three due later. */
  const world = async () => {
    const c = await r.customer();
    expect(await transaction([`UPDATE customers SET overdue_as_of = $3 WHERE tenant_id = $1 AND id = $2`, [t.tenant_id, c.id, TODAY]])).toBeNull();
    const invoices = [
      await r.invoice(c.id, 1_000, { issue_date: '2026-05-01', due_date: '2026-06-15' }),
      await r.invoice(c.id, 2_000, { issue_date: '2026-06-01', due_date: '2026-07-10' }),
      await r.invoice(c.id, 4_000, { issue_date: '2026-06-02', due_date: '2026-07-05' }),
      await r.invoice(c.id, 8_000, { issue_date: '2026-06-03', due_date: '2026-08-01' }),
    ];
    return { id: c.id, invoices: invoices.map((i) => i.id as string), numbers: invoices.map((i) => i.number as string) };
  };

  /** The statements of one transaction writing two worlds' rows (invoices voided, re-dated, paid; ledger lines; payments), set-wise. */
  const work = (a: Awaited<ReturnType<typeof world>>, b: Awaited<ReturnType<typeof world>>, tag: string): [string, unknown[]][] => [
    [
      `UPDATE invoices v SET due_date = CASE p.n WHEN 1 THEN DATE '2026-06-20' WHEN 2 THEN DATE '2026-07-02' ELSE v.due_date END,
                             status = CASE p.n WHEN 0 THEN 'void' ELSE v.status END
         FROM (SELECT id, (n - 1) % 4 AS n FROM unnest($2::text[]) WITH ORDINALITY AS i (id, n)) AS p
        WHERE v.tenant_id = $1 AND v.id = p.id`,
      [t.tenant_id, [...a.invoices, ...b.invoices]],
    ],
    [
      `INSERT INTO ledger_entries (tenant_id, id, customer_id, entry_date, type, source_type, source_id, description, debit, credit, created_at)
       SELECT $1, $2 || n, c, DATE '2026-06-30', 'adjustment', 'invoice', 'inv_x', 'by hand', d, cr, now()
         FROM unnest($3::text[], $4::bigint[], $5::bigint[]) WITH ORDINALITY AS l (c, d, cr, n)`,
      [t.tenant_id, `led_${tag}_`, [a.id, b.id, a.id], [250, 0, 0], [0, 75, 30]],
    ],
    [
      `INSERT INTO payments (tenant_id, id, customer_id, amount, currency, payment_date, method, status, auto_match, match_status,
                             match_suggestions, metadata, version, created_at, updated_at, customer_source)
       SELECT $1, $2 || n, c, a, 'usd', d, 'ach', 'unapplied', 'none', 'unmatched', '[]', '{}', 1, now(), now(), 'request'
         FROM unnest($3::text[], $4::bigint[], $5::date[]) WITH ORDINALITY AS p (c, a, d, n)`,
      [t.tenant_id, `pay_${tag}_`, [a.id, a.id, b.id], [100, 200, 400], ['2026-06-20', '2026-06-28', '2026-06-01']],
    ],
    // A second statement on the same invoices: the moves of both add up; one marked uncollectible (written off).
    [`UPDATE invoices SET due_date = DATE '2026-06-25' WHERE tenant_id = $1 AND id = $2`, [t.tenant_id, a.invoices[3]]],
    [`UPDATE invoices SET status = 'uncollectible' WHERE tenant_id = $1 AND id = $2`, [t.tenant_id, b.invoices[2]]],
  ];

  it('leaves the figures the per-statement path leaves, and writes each customer row once, at commit', async () => {
    const [a1, b1, a2, b2] = [await world(), await world(), await world(), await world()];
    expect(await transaction(...work(a1, b1, 'stmt'))).toBeNull();

    const client = new Client({ connectionString: app.databaseUrl });
    await client.connect();
    try {
      await client.query('BEGIN');
      await client.query(`SELECT ${CUSTOMER_FIGURES_AT_COMMIT}`);
      const updated = async () => Number((await client.query(`SELECT pg_stat_get_xact_tuples_updated('customers'::regclass) AS n`)).rows[0].n);
      for (const [sql, params] of work(a2, b2, 'commit')) await client.query(sql, params);
      expect(await updated()).toBe(0); // nothing moved yet
      await client.query('SET CONSTRAINTS ALL IMMEDIATE'); // what commit runs, here where it can be counted
      expect(await updated()).toBe(2); // one write per customer
      await client.query('COMMIT');
    } finally {
      await client.end();
    }
    expect(await figures(a2.id)).toEqual(await figures(a1.id));
    expect(await figures(b2.id)).toEqual(await figures(b1.id));
    expect(await figures(b2.id)).toMatchObject({ total_written_off: 4_000 });
    expect(await figures(a2.id)).toMatchObject({
      balance: 15_000 + 250 - 30, // a void by hand posts no ledger line
      overdue_amount: 2_000 + 8_000, // voided the overdue one; the second now due 2026-06-20, the fourth 2026-06-25
      overdue_refresh_on: '2026-07-03', // the third now due 2026-07-02
      total_paid: 300,
      last_payment_date: '2026-06-28',
    });
    await expectFiguresEqualRecount();
  });

  it('cannot commit a transaction whose moves are not applied: the moves are written, deleted and dropped by the triggers only', async () => {
    const a = await world();
    const before = await figures(a.id);
    const ledger = (id: string): [string, unknown[]] => [
      `INSERT INTO ledger_entries (tenant_id, id, customer_id, entry_date, type, source_type, source_id, description, debit, credit, created_at)
       VALUES ($1, $2, $3, DATE '2026-06-30', 'adjustment', 'invoice', 'inv_x', 'by hand', 500, 0, now())`,
      [t.tenant_id, id, a.id],
    ];
    for (const tamper of [
      'DELETE FROM pg_temp.customer_figure_moves',
      'UPDATE pg_temp.customer_figure_moves SET balance = 0',
      'TRUNCATE pg_temp.customer_figure_moves',
      'DROP TABLE pg_temp.customer_figure_moves',
      'ALTER TABLE pg_temp.customer_figure_moves DISABLE TRIGGER ALL',
      `INSERT INTO pg_temp.customer_figure_moves (tenant_id, customer_id, balance) VALUES ('${t.tenant_id}', '${a.id}', -500)`,
    ]) {
      const error = await transaction([`SELECT ${CUSTOMER_FIGURES_AT_COMMIT}`], ledger(`led_tamper_${tamper.length}`), [tamper]);
      expect({ tamper, error: error?.message ?? null }).toEqual({ tamper, error: expect.stringMatching(/figure triggers only|pending trigger events/) });
    }
    expect(await figures(a.id)).toEqual(before);

    // Applied early (SET CONSTRAINTS … IMMEDIATE), then more moves: queued again, applied at commit.
    expect(
      await transaction(
        [`SELECT ${CUSTOMER_FIGURES_AT_COMMIT}`],
        ledger('led_early_1'),
        ['SET CONSTRAINTS ALL IMMEDIATE'],
        ['SET CONSTRAINTS ALL DEFERRED'],
        ledger('led_early_2'),
        ['SAVEPOINT s'],
        ledger('led_early_3'),
        ['ROLLBACK TO SAVEPOINT s'],
        ledger('led_early_4'),
      ),
    ).toBeNull();
    expect(await figures(a.id)).toMatchObject({ balance: before.balance + 1_500 });
    await expectFiguresEqualRecount();
  });

  it("keeps a session's table of moves small (emptied once past 32 pages), every transaction's moves applied", async () => {
    const a = await world();
    const before = await figures(a.id);
    const client = new Client({ connectionString: app.databaseUrl });
    await client.connect();
    try {
      const pages: number[] = [];
      for (let k = 0; k < 6; k++) {
        // 600 statements in one round trip: each leaves one move in the table, deleted at commit.
        const lines = Array.from(
          { length: 600 },
          (_, n) => `INSERT INTO ledger_entries (tenant_id, id, customer_id, entry_date, type, source_type, source_id, description, debit, credit, created_at)
                     VALUES ('${t.tenant_id}', 'led_size_${k}_${n}', '${a.id}', DATE '2026-06-30', 'adjustment', 'invoice', 'inv_x', 'by hand', 1, 0, now())`,
        );
        await client.query(`BEGIN; SELECT ${CUSTOMER_FIGURES_AT_COMMIT}; ${lines.join(';\n')}; COMMIT`);
        pages.push(Number((await client.query(`SELECT pg_relation_size('pg_temp.customer_figure_moves') / 8192 AS n`)).rows[0].n));
      }
      expect(Math.max(...pages)).toBeGreaterThan(32); // grown past the bound …
      expect(pages.some((p, k) => k > 0 && p < pages[k - 1])).toBe(true); // … and emptied
    } finally {
      await client.end();
    }
    expect(await figures(a.id)).toMatchObject({ balance: before.balance + 6 * 600 });
  });

  it("writes each customer row once per bank import group, however many of its entries the group holds", async () => {
    const [a, b] = [await world(), await world()];
    const since = await now();
    const lines = [a, b].flatMap((w, k) => w.numbers.slice(1).map((number, n) => `2026-06-30,${[20, 40, 80][n]}.00,USD,Invoice ${number},,,FIG-${k}-${n}`));
    const posted = await postFile(app, t, 'csv', ['date,amount,currency,reference,payer_name,payer_account,bank_entry_id', ...lines].join('\n'));
    expect(posted.status).toBe(202);
    expect(await completed(app, t, posted.body.id)).toMatchObject({ payments_created: 6, matched: 6, errors: [] });
    expect(await writesPerTransaction([a.id, b.id], since)).toEqual({ [a.id]: 1, [b.id]: 1 });
    expect(await figures(a.id)).toMatchObject({ balance: 15_000 - 14_000, total_paid: 14_000, paid_invoice_count: 3 });
    await expectFiguresEqualRecount();
  });

  it('leaves figures equal to a recount when payments (figures per statement) and an import group (at commit) run in parallel', async () => {
    const worlds = [await world(), await world(), await world()];
    const holder = new Client({ connectionString: app.databaseUrl });
    await holder.connect();
    try {
      // Holds the customers' rows: each payment waits for them at its first figure move, the import group at its commit.
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM customers WHERE tenant_id = $1 AND id = ANY($2) FOR NO KEY UPDATE`, [t.tenant_id, worlds.map((w) => w.id)]);
      const [{ pid }] = (await holder.query(`SELECT pg_backend_pid() AS pid`)).rows;
      // One payment per customer (a customer's auto-matched payments queue on its matching lock), and a bank import group over all three.
      const requests = worlds.map((w) => r.payment({ customer_id: w.id, amount: 2_000, reference: w.numbers[1] }));
      const lines = worlds.flatMap((w, k) => [`2026-06-30,40.00,USD,Invoice ${w.numbers[2]},,,PAR-${k}-1`, `2026-06-30,80.00,USD,Invoice ${w.numbers[3]},,,PAR-${k}-2`]);
      const posted = await postFile(app, t, 'csv', ['date,amount,currency,reference,payer_name,payer_account,bank_entry_id', ...lines].join('\n'));
      expect(posted.status).toBe(202);
      // Waiting for the holder, or behind another waiter for the same row (who then holds the row's tuple lock).
      const waiting = async () =>
        (await holder.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid <> $1 AND cardinality(pg_blocking_pids(pid)) > 0`, [pid])).rows[0].n as number;
      const deadline = Date.now() + 60_000;
      while ((await waiting()) < worlds.length + 1) {
        if (Date.now() > deadline) throw new Error(`only ${await waiting()} transactions waited for the customers`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await holder.query('COMMIT');
      for (const res of await Promise.all(requests)) expect(res.status).toBe(201);
      expect(await completed(app, t, posted.body.id)).toMatchObject({ payments_created: 6, errors: [] });
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await holder.end();
    }
    for (const w of worlds) expect(await figures(w.id)).toMatchObject({ total_paid: 2_000 + 4_000 + 8_000, balance: 1_000 });
    await expectFiguresEqualRecount();
  }, 120_000);
});
