import { RECOUNT_FIGURES_SQL, recountReceivableTotalsSql } from '../../../src/modules/customers/infrastructure/customer-figures.sql';
import { FixedClock } from '../../../src/shared/domain/clock';
import { operatorTransaction } from '../../support/operator-sql';
import { expectProblem, TestApp, TestTenant } from '../../support/test-app';
import { Receivables } from '../payments/support';

const TODAY = '2026-06-30';

/** `POST /invoices/:id/write-off` (contract §15): the invoice, the ledger, the customer's figures, the guards. */
describe('write-offs', () => {
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

  const writeOff = (invoiceId: string, body: unknown, token = t.token, headers?: Record<string, string>) =>
    app.post(`/api/v1/invoices/${invoiceId}/write-off`, body, token, headers);
  const customer = async (id: string) => (await app.get(`/api/v1/customers/${id}`, t.token)).body;
  const transaction = (...statements: [string, unknown[]?][]) => operatorTransaction(app.databaseUrl, ...statements);

  it('writes off part of the amount due: 200 with the invoice and its write-off, the balance and the ledger follow', async () => {
    const c = await r.customer();
    const invoice = await r.invoice(c.id, 10_000, { issue_date: '2026-06-01' });
    await r.payment({ customer_id: c.id, amount: 9_550, reference: invoice.number, payment_date: '2026-06-20' });

    const res = await writeOff(invoice.id, { amount: 450, reason: 'small_balance' });
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBe(`"${res.body.version}"`);
    expect(res.body).toMatchObject({
      id: invoice.id,
      status: 'paid',
      amount_paid: 9_550,
      amount_credited: 0,
      amount_written_off: 450,
      amount_due: 0,
      write_offs: [{ id: expect.stringMatching(/^wo_/), amount: 450, reason: 'small_balance', created_at: expect.any(String) }],
    });
    expect(await r.getInvoice(invoice.id)).toEqual(res.body);

    const detail = await customer(c.id);
    expect(detail).toMatchObject({ balance: 0, ar_summary: { total_written_off: 450, balance: 0 } });
    const statement = (await app.get(`/api/v1/customers/${c.id}/statement?from=2026-06-01&to=${TODAY}`, t.token)).body;
    expect(statement.lines.map((l: any) => [l.date, l.type, l.reference, l.debit, l.credit])).toEqual([
      ['2026-06-01', 'invoice', invoice.number, 10_000, 0],
      ['2026-06-20', 'payment', invoice.number, 0, 9_550],
      [TODAY, 'write_off', invoice.number, 0, 450],
    ]);
    expect(statement.closing_balance).toBe(0);
  });

  it('writes off all of the amount due by default: with nothing paid the invoice is uncollectible', async () => {
    const c = await r.customer();
    const invoice = await r.invoice(c.id, 3_000);
    const res = await writeOff(invoice.id, { reason: 'bad_debt' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'uncollectible', amount_written_off: 3_000, amount_due: 0, overdue: false });
    expect(await customer(c.id)).toMatchObject({ balance: 0, ar_summary: { total_written_off: 3_000, open_invoice_count: 0 } });
    // Write-offs are final: the invoice cannot be reopened to owe it again.
    expectProblem(await app.patch(`/api/v1/invoices/${invoice.id}`, { status: 'open' }, t.token), 409, 'invalid_state');
  });

  it('counts an invoice marked uncollectible in total_written_off until it is reopened', async () => {
    const c = await r.customer();
    const invoice = await r.invoice(c.id, 8_000);
    await writeOff(invoice.id, { amount: 1_000, reason: 'other' });
    expect((await app.patch(`/api/v1/invoices/${invoice.id}`, { status: 'uncollectible' }, t.token)).status).toBe(200);
    expect(await customer(c.id)).toMatchObject({ balance: 0, ar_summary: { total_written_off: 8_000 } });
    expect((await app.patch(`/api/v1/invoices/${invoice.id}`, { status: 'open' }, t.token)).body).toMatchObject({ status: 'open', amount_due: 7_000 });
    expect(await customer(c.id)).toMatchObject({ balance: 7_000, ar_summary: { total_written_off: 1_000 } });
  });

  it('answers errors as problems and changes nothing', async () => {
    const c = await r.customer();
    const invoice = await r.invoice(c.id, 5_000);
    const draft = await r.invoice(c.id, 5_000, { status: 'draft' });
    const other = await app.createTenant('Other');

    for (const body of [{}, { reason: 'typo' }, { reason: 'other', amount: 0 }, { reason: 'other', amount: -1 }, { reason: 'other', amount: 1.5 },
      { reason: 'other', amount: '100' }, { reason: 'other', amount: 1e13 }, { reason: 'other', note: 'x' }]) {
      expectProblem(await writeOff(invoice.id, body), 400, 'validation_failed');
    }
    expectProblem(await writeOff(invoice.id, { amount: 5_001, reason: 'other' }), 409, 'conflict');
    expectProblem(await writeOff(draft.id, { reason: 'other' }), 409, 'invalid_state');
    expectProblem(await writeOff('inv_01jc9x7m3ef0ab6yr2t0n4q8zd', { reason: 'other' }), 404, 'not_found');
    expectProblem(await writeOff('not-an-id', { reason: 'other' }), 404, 'not_found');
    expectProblem(await writeOff(invoice.id, { reason: 'other' }, other.token), 404, 'not_found');
    const readOnly = await app.createClient(t.tenant_id, 'invoices:read');
    expectProblem(await writeOff(invoice.id, { reason: 'other' }, readOnly.token), 403, 'forbidden');

    expect(await r.getInvoice(invoice.id)).toMatchObject({ version: invoice.version, amount_written_off: 0, amount_due: 5_000, write_offs: [] });
    expect((await customer(c.id)).balance).toBe(5_000);
  });

  it('refuses paid and void invoices (409 invalid_state)', async () => {
    const c = await r.customer();
    const paid = await r.invoice(c.id, 2_000);
    await r.payment({ customer_id: c.id, amount: 2_000, reference: paid.number });
    const voided = await r.invoice(c.id, 2_500);
    await app.patch(`/api/v1/invoices/${voided.id}`, { status: 'void' }, t.token);
    expectProblem(await writeOff(paid.id, { reason: 'other' }), 409, 'invalid_state');
    expectProblem(await writeOff(voided.id, { reason: 'other' }), 409, 'invalid_state');
  });

  it('replays an Idempotency-Key: one write-off, the same answer', async () => {
    const c = await r.customer();
    const invoice = await r.invoice(c.id, 4_000);
    const first = await writeOff(invoice.id, { amount: 100, reason: 'small_balance' }, t.token, { 'Idempotency-Key': 'wo-1' });
    const again = await writeOff(invoice.id, { amount: 100, reason: 'small_balance' }, t.token, { 'Idempotency-Key': 'wo-1' });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await r.getInvoice(invoice.id)).toMatchObject({ amount_written_off: 100, write_offs: [expect.any(Object)] });
    expectProblem(await writeOff(invoice.id, { amount: 200, reason: 'small_balance' }, t.token, { 'Idempotency-Key': 'wo-1' }), 422, 'idempotency_key_reused');
  });

  it('never settles more than the total when write-offs and payments race on one invoice', async () => {
    const c = await r.customer();
    const invoice = await r.invoice(c.id, 10_000);
    const payments = [];
    for (let i = 0; i < 5; i++) payments.push((await r.payment({ customer_id: c.id, amount: 1_500, auto_match: 'none' })).body);
    const results = await Promise.all([
      ...Array.from({ length: 5 }, () => writeOff(invoice.id, { amount: 1_500, reason: 'other' })),
      ...payments.map((p) => app.post(`/api/v1/payments/${p.id}/match`, { applications: [{ invoice_id: invoice.id, amount: 1_500 }] }, t.token)),
    ]);
    expect(results.map((x) => x.status).sort()).toEqual([...Array(6).fill(200), ...Array(4).fill(409)]);
    const after = await r.getInvoice(invoice.id);
    expect(after.amount_paid + after.amount_written_off).toBe(9_000);
    expect(after).toMatchObject({ status: 'partially_paid', amount_due: 1_000 });
    expect(after.write_offs.reduce((s: number, w: any) => s + w.amount, 0)).toBe(after.amount_written_off);
    expect((await customer(c.id)).balance).toBe(1_000 - (5 * 1_500 - after.amount_paid));
  });

  describe('guards: the database refuses a write-off figure no row explains', () => {
    let invoice: { id: string; customer_id: string };
    beforeAll(async () => {
      const c = await r.customer();
      invoice = await r.invoice(c.id, 10_000);
    });

    it('refuses amount_written_off (or amount_credited) set by hand', async () => {
      for (const column of ['amount_written_off', 'amount_credited']) {
        const error = await transaction([`UPDATE invoices SET ${column} = 500 WHERE tenant_id = $1 AND id = $2`, [t.tenant_id, invoice.id]]);
        expect({ column, code: error?.code, constraint: error?.constraint }).toEqual({ column, code: '23514', constraint: 'invoice_figures' });
      }
    });

    it('refuses a write-off row whose invoice was not moved with it, and accepts both together', async () => {
      const row = (id: string) => [
        `INSERT INTO invoice_write_offs (tenant_id, id, invoice_id, amount, reason, created_at) VALUES ($1, $2, $3, 700, 'other', now())`,
        [t.tenant_id, id, invoice.id],
      ] as [string, unknown[]];
      expect(await transaction(row('wo_01jc9x7m3ef0ab6yr2t0n4q8zz'))).toMatchObject({ code: '23514', constraint: 'invoice_figures' });
      expect(await transaction(row('wo_01jc9x7m3ef0ab6yr2t0n4q8zy'), [`UPDATE invoices SET amount_written_off = 700 WHERE tenant_id = $1 AND id = $2`, [t.tenant_id, invoice.id]])).toBeNull();
      expect(await r.getInvoice(invoice.id)).toMatchObject({ amount_written_off: 700, amount_due: 9_300 });
    });

    it('refuses more settled than the total, and a paid invoice with something due', async () => {
      expect(await transaction([`UPDATE invoices SET amount_written_off = 10001 WHERE tenant_id = $1 AND id = $2`, [t.tenant_id, invoice.id]])).toMatchObject({
        code: '23514',
        constraint: 'invoices_settled_within_total',
      });
      expect(await transaction([`UPDATE invoices SET status = 'paid', paid_on = now() WHERE tenant_id = $1 AND id = $2`, [t.tenant_id, invoice.id]])).toMatchObject({
        code: '23514',
        constraint: 'invoices_paid_has_nothing_due',
      });
    });

    it('keeps write-offs as facts: never updated or deleted', async () => {
      for (const sql of [`UPDATE invoice_write_offs SET amount = 1 WHERE tenant_id = $1`, `DELETE FROM invoice_write_offs WHERE tenant_id = $1`]) {
        expect(await transaction([sql, [t.tenant_id]])).toMatchObject({ code: '23001' });
      }
    });

    it("refuses the customer's total_written_off written directly, and a recount finds what the triggers kept", async () => {
      expect(await transaction([`UPDATE customers SET total_written_off = total_written_off + 1 WHERE tenant_id = $1 AND id = $2`, [t.tenant_id, invoice.customer_id]])).toMatchObject({
        code: '23514',
        constraint: 'customer_figures',
      });
      const kept = await app.query(`SELECT id, total_written_off::int AS w FROM customers WHERE tenant_id = $1 ORDER BY id`, [t.tenant_id]);
      expect(kept.some((x: any) => x.w > 0)).toBe(true);
      expect(await transaction([RECOUNT_FIGURES_SQL], [recountReceivableTotalsSql('$1'), [t.tenant_id]])).toBeNull();
      expect(await app.query(`SELECT id, total_written_off::int AS w FROM customers WHERE tenant_id = $1 ORDER BY id`, [t.tenant_id])).toEqual(kept);
    });
  });
});
