import { Client } from 'pg';
import { FixedClock } from '../../../src/shared/domain/clock';
import { operatorTransaction } from '../../support/operator-sql';
import { TestApp, TestTenant } from '../../support/test-app';
import { Receivables } from '../payments/support';

const TODAY = '2026-06-30';

/**
 * ADR 49: a figure row whose commit-time check is queued and has not run queues no second one —
 * the queued check runs later and sees the write. Each row written by a payment (its invoice, its
 * payment) is checked once per transaction instead of twice; a row written again after its check
 * was queued, after its check ran (SET CONSTRAINTS … IMMEDIATE), or after a savepoint took its
 * queued check back, is still refused at commit when its figures disagree with their rows.
 */
describe('figure rows checked once per transaction', () => {
  const clock = new FixedClock(new Date(`${TODAY}T12:00:00Z`));
  let app: TestApp;
  let t: TestTenant;
  let r: Receivables;
  let seq = 0;

  beforeAll(async () => {
    app = await TestApp.start({ clock, env: { WORKERS_ENABLED: 'false' } });
    t = await app.createTenant();
    r = new Receivables(app, t);
  });
  afterAll(() => app.close());

  const transaction = (...statements: [string, unknown[]?][]) => operatorTransaction(app.databaseUrl, ...statements);

  /** An open invoice of 10,000 and an unapplied payment of 4,000 of one customer. */
  const world = async () => {
    const c = await r.customer();
    const invoice = await r.invoice(c.id, 10_000);
    const payment = (await r.payment({ customer_id: c.id, amount: 4_000, auto_match: 'none' })).body;
    return { invoice: invoice.id as string, payment: payment.id as string };
  };

  /** A new application id (a ULID's shape). */
  const applicationId = () => `app_01jd${String(++seq).padStart(18, '0')}`;

  /** What POST /payments writes for an application of `amount`, as three statements: the application, the payment's and the invoice's figures. */
  const applied = (w: { invoice: string; payment: string }, amount: number): [string, unknown[]][] => [
    [
      `INSERT INTO payment_applications (tenant_id, id, payment_id, invoice_id, amount, source, applied_at)
       VALUES ($1, $2, $3, $4, $5, 'manual', now())`,
      [t.tenant_id, applicationId(), w.payment, w.invoice, amount],
    ],
    [`UPDATE payments SET amount_applied = amount_applied + $3, status = 'partially_applied' WHERE tenant_id = $1 AND id = $2`, [t.tenant_id, w.payment, amount]],
    [`UPDATE invoices SET amount_paid = amount_paid + $3, status = 'partially_paid' WHERE tenant_id = $1 AND id = $2`, [t.tenant_id, w.invoice, amount]],
  ];
  const tamperInvoice = (w: { invoice: string }): [string, unknown[]] => [
    `UPDATE invoices SET amount_paid = amount_paid + 1 WHERE tenant_id = $1 AND id = $2`,
    [t.tenant_id, w.invoice],
  ];
  const tamperPayment = (w: { payment: string }): [string, unknown[]] => [
    `UPDATE payments SET amount_applied = amount_applied + 1 WHERE tenant_id = $1 AND id = $2`,
    [t.tenant_id, w.payment],
  ];

  /**
   * Rows checked by the figure check triggers in one transaction of `statements`, their deferred
   * checks run before commit (SET CONSTRAINTS ALL IMMEDIATE): calls of each trigger function
   * (track_functions) times the rows it checks.
   */
  const rowsChecked = async (statements: [string, unknown[]][]) => {
    const client = new Client({ connectionString: app.databaseUrl });
    await client.connect();
    try {
      await client.query('BEGIN');
      await client.query(`SET LOCAL track_functions = 'pl'`);
      for (const [sql, params] of statements) await client.query(sql, params);
      await client.query('SET CONSTRAINTS ALL IMMEDIATE');
      const [row] = (
        await client.query(`
          SELECT COALESCE(SUM(COALESCE(pg_stat_get_xact_function_calls(to_regprocedure(f.name)), 0) * f.rows), 0)::int AS rows
            FROM (VALUES ('invoices_figures_check()', 1), ('payments_figures_check()', 1), ('invoice_write_offs_figures_check()', 1),
                         ('payment_applications_invoice_figures_check()', 1),
                         -- Before migration 1765000100000 the application's function checked both rows.
                         ('payment_applications_figures_check()', CASE WHEN to_regprocedure('payment_applications_invoice_figures_check()') IS NULL THEN 2 ELSE 1 END))
                   AS f (name, rows)`)
      ).rows;
      await client.query('COMMIT');
      return row.rows as number;
    } finally {
      await client.end();
    }
  };

  it("checks an application's payment and invoice once each (twice each before)", async () => {
    const w = await world();
    expect(await rowsChecked(applied(w, 1_000))).toBe(2);
    // The figure rows first, the application last: the same.
    const [application, payment, invoice] = applied(w, 500);
    expect(await rowsChecked([payment, invoice, application])).toBe(2);
    expect((await app.get(`/api/v1/invoices/${w.invoice}`, t.token)).body).toMatchObject({ amount_paid: 1_500, amount_due: 8_500 });
  });

  it('checks each row of a set-wise write once: several applications, payments and invoices in three statements', async () => {
    const ws = [await world(), await world(), await world()];
    const amounts = [700, 800, 900];
    const statements: [string, unknown[]][] = [
      [
        `INSERT INTO payment_applications (tenant_id, id, payment_id, invoice_id, amount, source, applied_at)
         SELECT $1, id, p, i, a, 'manual', now() FROM unnest($2::text[], $3::text[], $4::text[], $5::int[]) AS x (id, p, i, a)`,
        [t.tenant_id, ws.map(applicationId), ws.map((w) => w.payment), ws.map((w) => w.invoice), amounts],
      ],
      [
        `UPDATE payments p SET amount_applied = p.amount_applied + x.a, status = 'partially_applied'
           FROM unnest($2::text[], $3::int[]) AS x (id, a) WHERE p.tenant_id = $1 AND p.id = x.id`,
        [t.tenant_id, ws.map((w) => w.payment), amounts],
      ],
      [
        `UPDATE invoices i SET amount_paid = i.amount_paid + x.a, status = 'partially_paid'
           FROM unnest($2::text[], $3::int[]) AS x (id, a) WHERE i.tenant_id = $1 AND i.id = x.id`,
        [t.tenant_id, ws.map((w) => w.invoice), amounts],
      ],
    ];
    expect(await rowsChecked(statements)).toBe(6);
  });

  it('commits an auto-matched POST /payments, its figures agreeing with their rows', async () => {
    const c = await r.customer();
    const invoice = await r.invoice(c.id, 10_000);
    const res = await r.payment({ customer_id: c.id, amount: 2_500, reference: invoice.number });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ amount_applied: 2_500 });
    expect((await app.get(`/api/v1/invoices/${invoice.id}`, t.token)).body).toMatchObject({ amount_paid: 2_500 });
  });

  describe('a row written again in the transaction is still refused at commit when its figures disagree', () => {
    it('after its check was queued (by the application), the invoice or the payment set by hand', async () => {
      const w = await world();
      expect(await transaction(...applied(w, 1_000), tamperInvoice(w))).toMatchObject({ code: '23514', constraint: 'invoice_figures' });
      expect(await transaction(...applied(w, 1_000), tamperPayment(w))).toMatchObject({ code: '23514', constraint: 'payment_figures' });
      // Set by hand first, moved correctly after: still refused.
      expect(await transaction(tamperInvoice(w), ...applied(w, 1_000))).toMatchObject({ code: '23514', constraint: 'invoice_figures' });
      // Nothing of these went in.
      expect((await app.get(`/api/v1/invoices/${w.invoice}`, t.token)).body).toMatchObject({ amount_paid: 0 });
    });

    it('after its check ran early (SET CONSTRAINTS ALL IMMEDIATE): the next write queues it again', async () => {
      const w = await world();
      expect(await transaction(...applied(w, 1_000), ['SET CONSTRAINTS ALL IMMEDIATE'], ['SET CONSTRAINTS ALL DEFERRED'], tamperInvoice(w))).toMatchObject({
        code: '23514',
        constraint: 'invoice_figures',
      });
      expect(await transaction(...applied(w, 1_000), ['SET CONSTRAINTS ALL IMMEDIATE'], ['SET CONSTRAINTS ALL DEFERRED'], tamperPayment(w))).toMatchObject({
        code: '23514',
        constraint: 'payment_figures',
      });
      // The application's invoice check alone run early, the invoice's own trigger deferred: refused at commit.
      expect(
        await transaction(...applied(w, 1_000), ['SET CONSTRAINTS payment_applications_invoice_figures IMMEDIATE'], tamperInvoice(w)),
      ).toMatchObject({ code: '23514', constraint: 'invoice_figures' });
      // Checked early, then moved correctly again: commits.
      expect(await transaction(...applied(w, 1_000), ['SET CONSTRAINTS ALL IMMEDIATE'], ['SET CONSTRAINTS ALL DEFERRED'], ...applied(w, 500))).toBeNull();
      expect((await app.get(`/api/v1/invoices/${w.invoice}`, t.token)).body).toMatchObject({ amount_paid: 1_500 });
    });

    it('in immediate mode: a write whose row has a check queued by the same statement is checked at its end', async () => {
      const w = await world();
      expect(
        await transaction(['SET CONSTRAINTS ALL IMMEDIATE'], [
          `WITH a AS (INSERT INTO payment_applications (tenant_id, id, payment_id, invoice_id, amount, source, applied_at)
                      VALUES ($1, $4, $2, $3, 1000, 'manual', now()) RETURNING 1),
                p AS (UPDATE payments SET amount_applied = amount_applied + 1000, status = 'partially_applied' WHERE tenant_id = $1 AND id = $2 RETURNING 1)
           UPDATE invoices SET amount_paid = amount_paid + 999, status = 'partially_paid' WHERE tenant_id = $1 AND id = $3`,
          [t.tenant_id, w.payment, w.invoice, applicationId()],
        ]),
      ).toMatchObject({ code: '23514', constraint: 'invoice_figures' });
    });

    it('after a savepoint took back its queued check, or the check that ran in it', async () => {
      const w = await world();
      // A check queued inside a savepoint rolled back: the row is no longer "queued"; the next write queues it.
      expect(
        await transaction(['SAVEPOINT s'], tamperInvoice(w), ['ROLLBACK TO SAVEPOINT s'], tamperInvoice(w)),
      ).toMatchObject({ code: '23514', constraint: 'invoice_figures' });
      // A check run (and passed) inside a savepoint rolled back runs again at commit, and sees the later write.
      expect(
        await transaction(...applied(w, 1_000), ['SAVEPOINT s'], ['SET CONSTRAINTS ALL IMMEDIATE'], ['ROLLBACK TO SAVEPOINT s'], tamperPayment(w)),
      ).toMatchObject({ code: '23514', constraint: 'payment_figures' });
      // A check run inside a savepoint released: the next write queues it again.
      expect(
        await transaction(...applied(w, 1_000), ['SAVEPOINT s'], ['SET CONSTRAINTS ALL IMMEDIATE'], ['SET CONSTRAINTS ALL DEFERRED'], ['RELEASE SAVEPOINT s'], tamperInvoice(w)),
      ).toMatchObject({ code: '23514', constraint: 'invoice_figures' });
      expect((await app.get(`/api/v1/invoices/${w.invoice}`, t.token)).body).toMatchObject({ amount_paid: 0 });
    });
  });
});
