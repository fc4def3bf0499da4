import { OverdueFiguresJob } from '../../../src/modules/customers/infrastructure/overdue-figures.job';
import { agingFromRow, agingSelectList } from '../../../src/modules/customers/infrastructure/aging.sql';
import { emptyAging } from '../../../src/modules/customers';
import { RECOUNT_FIGURES_SQL, recountBalanceAndOverdueSql } from '../../../src/modules/customers/infrastructure/customer-figures.sql';
import { customerSummaryRefreshSql } from '../../../src/migrations/1763800400000-customer-summary';
import { FixedClock } from '../../../src/shared/domain/clock';
import { INVOICE_STATUSES } from '../../../src/modules/invoicing';
import { isOpenInvoice, isOverdueInvoice } from '../../../src/shared/domain/receivable';
import { openInvoiceSql, overdueInvoiceSql } from '../../../src/shared/infrastructure/query/receivable.sql';
import { operatorTransaction } from '../../support/operator-sql';
import { TestApp, TestTenant } from '../../support/test-app';
import { Receivables } from '../payments/support';

const TODAY = '2026-06-30';

/**
 * The customers' stored figures and the guards on every row that holds a figure (ADR 17):
 * written by the database alone, checked at commit against the rows they sum — whatever writes
 * them, the service or a statement typed by hand — and never written by a read.
 */
describe('stored figures and their guards', () => {
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

  const customerRow = async (id: string) =>
    (
      await app.query(
        `SELECT balance::int, overdue_amount::int, overdue_as_of::text, overdue_refresh_on::text, total_invoiced::int, paid_invoice_count,
                total_paid::int, xmin::text AS xmin
           FROM customers WHERE tenant_id = $1 AND id = $2`,
        [t.tenant_id, id],
      )
    )[0];

  describe('guards: a figure no source explains fails the commit (finding 1)', () => {
    let invoice: { id: string; customer_id: string };
    let payment: { id: string };
    beforeAll(async () => {
      const c = await r.customer();
      invoice = await r.invoice(c.id, 10_000);
      payment = (await r.payment({ customer_id: c.id, amount: 4_000, auto_match: 'none' })).body;
    });

    it("refuses an invoice's amount_paid set by hand with no application behind it", async () => {
      const error = await transaction([
        `UPDATE invoices SET amount_paid = 2500, status = 'partially_paid' WHERE tenant_id = $1 AND id = $2`,
        [t.tenant_id, invoice.id],
      ]);
      expect(error).toMatchObject({ code: '23514', constraint: 'invoice_figures' });
      expect((await app.get(`/api/v1/invoices/${invoice.id}`, t.token)).body).toMatchObject({ amount_paid: 0, status: 'open' });
    });

    it("refuses a payment's amount_applied set by hand with no application behind it", async () => {
      const error = await transaction([
        `UPDATE payments SET amount_applied = 1000, status = 'partially_applied' WHERE tenant_id = $1 AND id = $2`,
        [t.tenant_id, payment.id],
      ]);
      expect(error).toMatchObject({ code: '23514', constraint: 'payment_figures' });
    });

    it('refuses an invoice inserted with an amount paid and no application', async () => {
      const [row] = await app.query(`SELECT * FROM invoices WHERE tenant_id = $1 AND id = $2`, [t.tenant_id, invoice.id]);
      const error = await transaction([
        `INSERT INTO invoices (tenant_id, id, number, customer_id, status, currency, issue_date, due_date, line_items, subtotal, discount_total, tax_total,
                               total, amount_paid, created_at, updated_at, finalized_at)
         VALUES ($1, 'inv_01jc9x7m3ef0ab6yr2t0n4q8zz', 'BY-HAND-1', $2, 'partially_paid', 'usd', '2026-06-01', '2026-06-30', '[]', 100, 0, 0, 100, 40, now(), now(), now())`,
        [t.tenant_id, row.customer_id],
      ]);
      expect(error).toMatchObject({ code: '23514', constraint: 'invoice_figures' });
    });

    it('refuses an application whose payment and invoice were not moved with it', async () => {
      const error = await transaction([
        `INSERT INTO payment_applications (tenant_id, id, payment_id, invoice_id, amount, source, applied_at)
         VALUES ($1, 'app_01jc9x7m3ef0ab6yr2t0n4q8zz', $2, $3, 1000, 'manual', now())`,
        [t.tenant_id, payment.id, invoice.id],
      ]);
      expect(error).toMatchObject({ code: '23514', constraint: 'payment_figures' });
    });

    it('accepts the same application when both sides move with it (the check is of sums, not of who wrote them)', async () => {
      const error = await transaction(
        [
          `INSERT INTO payment_applications (tenant_id, id, payment_id, invoice_id, amount, source, applied_at)
           VALUES ($1, 'app_01jc9x7m3ef0ab6yr2t0n4q8zy', $2, $3, 1000, 'manual', now())`,
          [t.tenant_id, payment.id, invoice.id],
        ],
        [`UPDATE payments SET amount_applied = 1000, status = 'partially_applied' WHERE tenant_id = $1 AND id = $2`, [t.tenant_id, payment.id]],
        [`UPDATE invoices SET amount_paid = 1000, status = 'partially_paid' WHERE tenant_id = $1 AND id = $2`, [t.tenant_id, invoice.id]],
      );
      expect(error).toBeNull();
      expect((await app.get(`/api/v1/invoices/${invoice.id}`, t.token)).body).toMatchObject({ amount_paid: 1000, amount_due: 9000 });
    });

    // Each sum the commit-time checks compare (their functions read all of them in one statement
    // since migration 1764650000000): every one must still refuse a figure its rows do not back.
    it('refuses each invoice figure and each payment figure set by hand, naming the figure', async () => {
      const cases: [string, unknown[], string, RegExp][] = [
        [`UPDATE invoices SET amount_paid = 300 WHERE tenant_id = $1 AND id = $2`, [t.tenant_id, invoice.id], 'invoice_figures', /amount_paid is 300 but its applications sum to \d+$/],
        [`UPDATE invoices SET amount_written_off = 300 WHERE tenant_id = $1 AND id = $2`, [t.tenant_id, invoice.id], 'invoice_figures', /amount_written_off is 300 but its write-offs sum to \d+$/],
        [`UPDATE invoices SET amount_credited = 300 WHERE tenant_id = $1 AND id = $2`, [t.tenant_id, invoice.id], 'invoice_figures', /amount_credited is 300 but the credit applied to it sums to \d+$/],
        [`UPDATE payments SET amount_applied = 300 WHERE tenant_id = $1 AND id = $2`, [t.tenant_id, payment.id], 'payment_figures', /amount_applied is 300 but its applications sum to \d+$/],
        [`UPDATE payments SET amount_refunded = 300 WHERE tenant_id = $1 AND id = $2`, [t.tenant_id, payment.id], 'payment_figures', /amount_refunded is 300 but its refunds sum to \d+$/],
      ];
      for (const [sql, params, constraint, message] of cases) {
        const error = await transaction([sql, params]);
        expect({ sql, code: error?.code, constraint: error?.constraint }).toEqual({ sql, code: '23514', constraint });
        expect(error?.message).toMatch(message);
      }
    });

    it('refuses an application whose invoice was not moved with it, though its payment was', async () => {
      const error = await transaction(
        [
          `INSERT INTO payment_applications (tenant_id, id, payment_id, invoice_id, amount, source, applied_at)
           VALUES ($1, 'app_01jc9x7m3ef0ab6yr2t0n4q8zx', $2, $3, 500, 'manual', now())`,
          [t.tenant_id, payment.id, invoice.id],
        ],
        [`UPDATE payments SET amount_applied = amount_applied + 500, status = 'partially_applied' WHERE tenant_id = $1 AND id = $2`, [t.tenant_id, payment.id]],
      );
      expect(error).toMatchObject({ code: '23514', constraint: 'invoice_figures' });
    });

    it('refuses a payment inserted with an amount applied and no application (a payment row is written once, after matching)', async () => {
      const error = await transaction([
        `INSERT INTO payments (tenant_id, id, customer_id, amount, amount_applied, currency, payment_date, method, status, auto_match, match_status,
                               match_suggestions, metadata, version, created_at, updated_at, customer_source)
         VALUES ($1, 'pay_01jc9x7m3ef0ab6yr2t0n4q8zz', $2, 4000, 1500, 'usd', '2026-06-30', 'ach', 'partially_applied', 'strict', 'matched',
                 '[]', '{}', 2, now(), now(), 'request')`,
        [t.tenant_id, invoice.customer_id],
      ]);
      expect(error).toMatchObject({ code: '23514', constraint: 'payment_figures' });
    });

    it("refuses a customer's figures written directly, on update and on insert", async () => {
      for (const column of ['balance', 'overdue_amount', 'total_invoiced', 'total_paid']) {
        const error = await transaction([`UPDATE customers SET ${column} = ${column} + 1 WHERE tenant_id = $1 AND id = $2`, [t.tenant_id, invoice.customer_id]]);
        expect({ column, code: error?.code, constraint: error?.constraint }).toEqual({ column, code: '23514', constraint: 'customer_figures' });
      }
      const error = await transaction([
        `INSERT INTO customers (tenant_id, id, name, currency, balance, created_at, updated_at) VALUES ($1, 'cus_01jc9x7m3ef0ab6yr2t0n4q8zz', 'X', 'usd', 500, now(), now())`,
        [t.tenant_id],
      ]);
      expect(error).toMatchObject({ code: '23514', constraint: 'customer_figures' });
    });
  });

  describe('figures follow every write, the service or a statement by hand (finding 8)', () => {
    it('moves balance with a ledger entry written by hand', async () => {
      const c = await r.customer();
      await r.invoice(c.id, 3_000);
      const error = await transaction([
        `INSERT INTO ledger_entries (tenant_id, id, customer_id, entry_date, type, source_type, source_id, description, debit, credit, created_at)
         VALUES ($1, 'led_01jc9x7m3ef0ab6yr2t0n4q8zz', $2, '2026-06-30', 'adjustment', 'invoice', 'inv_x', 'by hand', 250, 0, now())`,
        [t.tenant_id, c.id],
      ]);
      expect(error).toBeNull();
      expect((await customerRow(c.id)).balance).toBe(3_250);
    });

    it('moves the overdue figures when an invoice changes by hand', async () => {
      const c = await r.customer();
      await transaction([`UPDATE customers SET overdue_as_of = $3 WHERE tenant_id = $1 AND id = $2`, [t.tenant_id, c.id, TODAY]]);
      const inv = await r.invoice(c.id, 5_000, { issue_date: '2026-06-01', due_date: '2026-07-10' });
      expect(await customerRow(c.id)).toMatchObject({ overdue_amount: 0, overdue_refresh_on: '2026-07-11' });
      expect(await transaction([`UPDATE invoices SET due_date = '2026-06-15' WHERE tenant_id = $1 AND id = $2`, [t.tenant_id, inv.id]])).toBeNull();
      expect(await customerRow(c.id)).toMatchObject({ overdue_amount: 5_000 });
      expect(await transaction([`UPDATE invoices SET status = 'void' WHERE tenant_id = $1 AND id = $2`, [t.tenant_id, inv.id]])).toBeNull();
      expect(await customerRow(c.id)).toMatchObject({ overdue_amount: 0 });
    });

    it('keeps stored figures equal to a recount from the rows after a busy history, the calendar job included', async () => {
      const c = await r.customer();
      const a = await r.invoice(c.id, 10_000, { issue_date: '2026-05-01', due_date: '2026-05-31' });
      const b = await r.invoice(c.id, 7_000, { issue_date: '2026-06-01', due_date: '2026-07-15' });
      const d = await r.invoice(c.id, 2_000, { issue_date: '2026-06-10', due_date: '2026-08-01' });
      await r.payment({ customer_id: c.id, amount: 4_000, reference: a.number });
      await Promise.all([r.payment({ customer_id: c.id, amount: 7_000 }), r.payment({ customer_id: c.id, amount: 1_500, auto_match: 'none' })]);
      expect((await app.patch(`/api/v1/invoices/${d.id}`, { status: 'uncollectible' }, t.token)).status).toBe(200);
      expect((await app.patch(`/api/v1/invoices/${a.id}`, { due_date: '2026-07-20' }, t.token)).status).toBe(200);
      const job = app.app.get(OverdueFiguresJob);
      await job.advance(t.tenant_id, '2026-07-21');
      await job.advance(t.tenant_id, TODAY);

      const stored = await customerRow(c.id);
      const error = await transaction(
        [RECOUNT_FIGURES_SQL],
        [recountBalanceAndOverdueSql('$1'), [t.tenant_id]],
        [customerSummaryRefreshSql('$1'), [t.tenant_id]],
      );
      expect(error).toBeNull();
      const { xmin: _a, ...recounted } = await customerRow(c.id);
      const { xmin: _b, ...kept } = stored;
      expect(kept).toEqual(recounted);
      expect(kept).toMatchObject({ overdue_as_of: TODAY, balance: 10_000 + 7_000 - 4_000 - 7_000 - 1_500 });
    });

    it('installs the triggers from the one definition of an open invoice', async () => {
      const [row] = await app.query(`SELECT pg_get_functiondef('invoices_customer_figures_rows'::regproc) AS fn, pg_get_functiondef('customers_figures_guard'::regproc) AS guard`);
      expect(row.fn).toContain(openInvoiceSql('n.'));
      expect(row.fn).toContain(openInvoiceSql('o.'));
      expect(row.guard).toContain(openInvoiceSql('i.'));
    });

    it('has SQL that agrees with the TypeScript rule for every status, amount and due date', async () => {
      const cases = INVOICE_STATUSES.flatMap((status) => [-5, 0, 1].flatMap((amountDue) => ['2026-06-29', TODAY].map((dueDate) => ({ status, amountDue, dueDate }))));
      const rows = await app.query<{ open: boolean; overdue: boolean }>(
        `SELECT ${openInvoiceSql('')} AS open, ${overdueInvoiceSql(`'${TODAY}'`, '')} AS overdue
           FROM unnest($1::text[], $2::bigint[], $3::date[]) WITH ORDINALITY AS v (status, amount_due, due_date, n) ORDER BY n`,
        [cases.map((c) => c.status), cases.map((c) => c.amountDue), cases.map((c) => c.dueDate)],
      );
      expect(rows.map((x) => [x.open, x.overdue])).toEqual(cases.map((c) => [isOpenInvoice(c), isOverdueInvoice(c, TODAY)]));
    });
  });

  describe('aging buckets: the SQL the reads run, generated from AGING_BUCKETS', () => {
    it.each([
      [-30, 'current'], // due in the future
      [0, 'current'], // due today: not yet past due
      [1, 'days_1_30'],
      [30, 'days_1_30'],
      [31, 'days_31_60'],
      [60, 'days_31_60'],
      [61, 'days_61_90'],
      [90, 'days_61_90'],
      [91, 'days_over_90'],
      [4000, 'days_over_90'],
    ])('an amount due %p days before the day is in %s', async (daysAgo, bucket) => {
      const [row] = await app.query(`SELECT ${agingSelectList('d', 'a', '$1')} FROM (VALUES ($1::date - $2::int, 7)) v (d, a)`, [TODAY, daysAgo]);
      expect(agingFromRow(row)).toEqual({ ...emptyAging(), [bucket]: 7 });
    });

    it('crosses month and leap-year boundaries by calendar days', async () => {
      const bucket = async (due: string, asOf: string) =>
        Object.entries(agingFromRow((await app.query(`SELECT ${agingSelectList('$2::date', '1', '$1')}`, [asOf, due]))[0])).find(([, v]) => v === 1)![0];
      expect(await bucket('2028-01-30', '2028-03-01')).toBe('days_31_60'); // 31 days through 29 February
      expect(await bucket('2027-01-30', '2027-03-01')).toBe('days_1_30'); // 30 days
    });
  });

  describe('reads write nothing (finding 8)', () => {
    it('lists by overdue amount with figures gone stale, exactly, without touching a row; the job then moves them', async () => {
      const tenant = await app.createTenant('Reads');
      const rr = new Receivables(app, tenant);
      const customers = [];
      for (const [i, due] of ['2026-06-01', '2026-07-05', '2026-07-20'].entries()) {
        const c = await rr.customer({ name: `Stale ${i}` });
        await rr.invoice(c.id, 1_000 * (i + 1), { issue_date: '2026-05-15', due_date: due });
        customers.push(c);
      }
      await app.app.get(OverdueFiguresJob).advance(tenant.tenant_id, TODAY);
      const rows = () => app.query(`SELECT id, xmin::text, overdue_amount::int FROM customers WHERE tenant_id = $1 ORDER BY id`, [tenant.tenant_id]);
      const list = async () => (await app.get('/api/v1/customers?sort=-overdue_amount&overdue=true', tenant.token)).body.data.map((c: any) => [c.name, c.overdue_amount]);
      expect(await list()).toEqual([['Stale 0', 1_000]]);

      clock.set(new Date('2026-07-10T12:00:00Z')); // the July 5 invoice is now overdue; the stored figures say otherwise
      try {
        const before = await rows();
        expect(await list()).toEqual([['Stale 1', 2_000], ['Stale 0', 1_000]]);
        for (const c of customers) await app.get(`/api/v1/customers/${c.id}`, tenant.token);
        await app.get(`/api/v1/customers?overdue=false`, tenant.token);
        expect(await rows()).toEqual(before); // not one row version changed

        expect(before.map((x: any) => x.overdue_amount)).toEqual([1_000, 0, 0]); // rows in id order: the order created
        expect(await app.app.get(OverdueFiguresJob).advance(tenant.tenant_id, '2026-07-10')).toBe(1);
        expect((await rows()).map((x: any) => x.overdue_amount)).toEqual([1_000, 2_000, 0]);
        expect(await list()).toEqual([['Stale 1', 2_000], ['Stale 0', 1_000]]); // the same answer from the stored figures
      } finally {
        clock.set(new Date(`${TODAY}T12:00:00Z`));
      }
    });
  });
});
