import { Client } from 'pg';
import { FixedClock } from '../../../src/shared/domain/clock';
import { operatorTransaction } from '../../support/operator-sql';
import { TestApp, TestTenant } from '../../support/test-app';
import { Receivables } from '../payments/support';

const TODAY = '2026-06-30';

/**
 * The customers' invoice figures and balance are moved once per statement and customer (ADR 42):
 * a statement writing several rows of several customers leaves the same figures as the same
 * writes made one row per statement, updates each customer row once, and the guards still refuse
 * what they refused.
 */
describe('customer figures moved per statement', () => {
  const clock = new FixedClock(new Date(`${TODAY}T12:00:00Z`));
  let app: TestApp;
  let t: TestTenant;
  let r: Receivables;

  beforeAll(async () => {
    app = await TestApp.start({ clock, env: { WORKERS_ENABLED: 'false' } });
    t = await app.createTenant();
    r = new Receivables(app, t);
  });
  afterAll(() => app.close());

  const transaction = (...statements: [string, unknown[]?][]) => operatorTransaction(app.databaseUrl, ...statements);

  const figures = async (id: string) =>
    (
      await app.query(
        `SELECT balance::int, overdue_amount::int, overdue_as_of::text, overdue_refresh_on::text, total_invoiced::int, paid_invoice_count,
                paid_days_sum::int, total_paid::int
           FROM customers WHERE tenant_id = $1 AND id = $2`,
        [t.tenant_id, id],
      )
    )[0];

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
    return { id: c.id, invoices: invoices.map((i) => i.id as string) };
  };

  /** The changes to a world's invoices by position `p.n`: voided (the overdue one), due back to 2026-06-20 (overdue now), due earlier, unchanged. */
  const changeSql = (positions: string) => `
    UPDATE invoices v SET due_date = CASE p.n WHEN 1 THEN DATE '2026-06-20' WHEN 2 THEN DATE '2026-07-02' ELSE v.due_date END,
                          status = CASE p.n WHEN 0 THEN 'void' ELSE v.status END
      FROM (${positions}) AS p
     WHERE v.tenant_id = $1 AND v.id = p.id`;
  const allOf = `SELECT id, (n - 1) % 4 AS n FROM unnest($2::text[]) WITH ORDINALITY AS i (id, n)`;

  it('gives the same figures for several customers\' invoices and ledger lines in one statement as one row per statement', async () => {
    const [a1, a2, b1, b2] = [await world(), await world(), await world(), await world()];
    // Set-wise: every invoice of a1 and a2 in one UPDATE, their ledger lines in one INSERT.
    expect(
      await transaction(
        [changeSql(allOf), [t.tenant_id, [...a1.invoices, ...a2.invoices]]],
        [
          `INSERT INTO ledger_entries (tenant_id, id, customer_id, entry_date, type, source_type, source_id, description, debit, credit, created_at)
           SELECT $1, 'led_stmt_' || n, c, DATE '2026-06-30', 'adjustment', 'invoice', 'inv_x', 'by hand', d, cr, now()
             FROM unnest($2::text[], $3::bigint[], $4::bigint[]) WITH ORDINALITY AS l (c, d, cr, n)`,
          [t.tenant_id, [a1.id, a2.id, a1.id], [250, 0, 0], [0, 75, 30]],
        ],
      ),
    ).toBeNull();
    // Row by row: the same changes for b1 and b2, one statement per invoice and per line.
    const rowByRow: [string, unknown[]][] = [];
    for (const w of [b1, b2]) w.invoices.forEach((id, n) => rowByRow.push([changeSql(`SELECT $2::text AS id, $3::int AS n`), [t.tenant_id, id, n]]));
    [
      [b1.id, 250, 0],
      [b2.id, 0, 75],
      [b1.id, 0, 30],
    ].forEach(([c, d, cr], n) =>
      rowByRow.push([
        `INSERT INTO ledger_entries (tenant_id, id, customer_id, entry_date, type, source_type, source_id, description, debit, credit, created_at)
         VALUES ($1, $2, $3, DATE '2026-06-30', 'adjustment', 'invoice', 'inv_x', 'by hand', $4, $5, now())`,
        [t.tenant_id, `led_row_${n}`, c, d, cr],
      ]),
    );
    expect(await transaction(...rowByRow)).toBeNull();

    expect(await figures(a1.id)).toEqual(await figures(b1.id));
    expect(await figures(a2.id)).toEqual(await figures(b2.id));
    expect(await figures(a1.id)).toMatchObject({
      balance: 1_000 + 2_000 + 4_000 + 8_000 + 250 - 30, // a void by hand posts no ledger line
      overdue_amount: 2_000, // voided the overdue one; the second now due 2026-06-20
      overdue_refresh_on: '2026-07-03', // the third now due 2026-07-02
      total_invoiced: 2_000 + 4_000 + 8_000,
    });
  });

  it('updates each customer row once per statement, however many of its rows the statement writes', async () => {
    const [a1, a2] = [await world(), await world()];
    const client = new Client({ connectionString: app.databaseUrl });
    await client.connect();
    try {
      await client.query('BEGIN');
      const updated = async () => Number((await client.query(`SELECT pg_stat_get_xact_tuples_updated('customers'::regclass) AS n`)).rows[0].n);
      const before = await updated();
      await client.query(changeSql(allOf), [t.tenant_id, [...a1.invoices, ...a2.invoices]]);
      const afterInvoices = await updated();
      await client.query(
        `INSERT INTO ledger_entries (tenant_id, id, customer_id, entry_date, type, source_type, source_id, description, debit, credit, created_at)
         SELECT $1, 'led_once_' || n, c, DATE '2026-06-30', 'adjustment', 'invoice', 'inv_x', 'by hand', 10, 0, now()
           FROM unnest($2::text[]) WITH ORDINALITY AS l (c, n)`,
        [t.tenant_id, [a1.id, a2.id, a1.id, a2.id, a1.id]],
      );
      const afterLedger = await updated();
      await client.query('COMMIT');
      expect([afterInvoices - before, afterLedger - afterInvoices]).toEqual([2, 2]);
    } finally {
      await client.end();
    }
    expect((await figures(a1.id)).balance).toBe(1_000 + 2_000 + 4_000 + 8_000 + 30);
  });

  /** Payments of the customers `cs` (one per element), amounts and dates by position, in one INSERT. */
  const paymentsSql = `
    INSERT INTO payments (tenant_id, id, customer_id, amount, currency, payment_date, method, status, auto_match, match_status,
                          match_suggestions, metadata, version, created_at, updated_at, customer_source)
    SELECT $1, $2 || n, c, a, 'usd', d, 'ach', 'unapplied', 'none', 'unmatched', '[]', '{}', 1, now(), now(), 'request'
      FROM unnest($3::text[], $4::bigint[], $5::date[]) WITH ORDINALITY AS p (c, a, d, n)`;

  it("moves total_paid and the latest payment of several customers' payments inserted in one statement as one per statement", async () => {
    const [a1, a2, b1, b2] = [await r.customer(), await r.customer(), await r.customer(), await r.customer()];
    const dates = ['2026-06-20', '2026-06-28', '2026-06-28', '2026-06-01'];
    const client = new Client({ connectionString: app.databaseUrl });
    await client.connect();
    try {
      await client.query('BEGIN');
      const updated = async () => Number((await client.query(`SELECT pg_stat_get_xact_tuples_updated('customers'::regclass) AS n`)).rows[0].n);
      const before = await updated();
      await client.query(paymentsSql, [t.tenant_id, 'pay_stmt_', [a1.id, a1.id, a2.id, a1.id], [100, 200, 400, 800], dates]);
      expect((await updated()) - before).toBe(2);
      await client.query('COMMIT');
    } finally {
      await client.end();
    }
    const rowByRow: [string, unknown[]][] = [b1.id, b1.id, b2.id, b1.id].map((c, n) => [paymentsSql, [t.tenant_id, `pay_row_${n}_`, [c], [[100, 200, 400, 800][n]], [dates[n]]]]);
    expect(await transaction(...rowByRow)).toBeNull();
    const latest = async (id: string) =>
      (await app.query(`SELECT total_paid::int, last_payment_id, last_payment_date::text FROM customers WHERE tenant_id = $1 AND id = $2`, [t.tenant_id, id]))[0];
    expect(await latest(a1.id)).toEqual({ total_paid: 1_100, last_payment_id: 'pay_stmt_2', last_payment_date: '2026-06-28' });
    expect(await latest(b1.id)).toEqual({ total_paid: 1_100, last_payment_id: 'pay_row_1_1', last_payment_date: '2026-06-28' });
    expect(await latest(a2.id)).toMatchObject({ total_paid: 400, last_payment_date: '2026-06-28' });
    expect(await figures(a2.id)).toEqual(await figures(b2.id));
  });

  it('still refuses a figure written directly, and a figure that disagrees with its rows still fails the commit', async () => {
    const a = await world();
    expect(await transaction([`UPDATE customers SET balance = balance + 1 WHERE tenant_id = $1 AND id = $2`, [t.tenant_id, a.id]])).toMatchObject({
      code: '23514',
      constraint: 'customer_figures',
    });
    expect(
      await transaction([`UPDATE invoices SET amount_paid = 500, status = 'partially_paid' WHERE tenant_id = $1 AND id = ANY($2)`, [t.tenant_id, a.invoices.slice(1, 3)]]),
    ).toMatchObject({ code: '23514', constraint: 'invoice_figures' });
    expect(await figures(a.id)).toMatchObject({ balance: 15_000, total_invoiced: 15_000, overdue_amount: 1_000 });
  });
});
