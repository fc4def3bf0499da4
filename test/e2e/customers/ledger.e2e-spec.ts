import { FixedClock } from '../../../src/shared/domain/clock';
import { CustomerMother } from '../../support/mothers/customer.mother';
import { InvoiceMother } from '../../support/mothers/invoice.mother';
import { expectProblem, TestApp, TestTenant } from '../../support/test-app';

const TODAY = '2026-06-30';

describe('receivables ledger and balance (contract §6, §9)', () => {
  const clock = new FixedClock(new Date(`${TODAY}T12:00:00Z`));
  let app: TestApp;
  let t: TestTenant;

  beforeAll(async () => {
    app = await TestApp.start({ clock });
    t = await app.createTenant();
  });
  afterAll(() => app.close());

  const ledger = (customerId: string) =>
    app.query<{ entry_date: string; type: string; reference: string; debit: number; credit: number }>(
      `SELECT entry_date::text, type, reference, debit::int, credit::int FROM ledger_entries WHERE tenant_id = $1 AND customer_id = $2 ORDER BY seq`,
      [t.tenant_id, customerId],
    );
  const invoice = async (customerId: string, amount: number, extra: Record<string, unknown> = {}) => {
    const res = await app.post('/api/v1/invoices', InvoiceMother.request({ customer_id: customerId, line_items: [InvoiceMother.line({ unit_amount: amount })], ...extra }), t.token);
    expect(res.status).toBe(201);
    return res.body;
  };
  const patch = async (id: string, body: Record<string, unknown>) => {
    const res = await app.patch(`/api/v1/invoices/${id}`, body, t.token);
    expect(res.status).toBe(200);
    return res.body;
  };

  it('writes a dated entry for every change to what the customer owes; balance = ledger sum = open amount due − unapplied payments', async () => {
    const c = (await app.post('/api/v1/customers', CustomerMother.request(), t.token)).body;
    const a = await invoice(c.id, 10000, { issue_date: '2026-06-01', due_date: '2026-06-15', number: 'A-1' });
    const b = await invoice(c.id, 5000, { issue_date: '2026-06-10', status: 'draft', number: 'B-1' });
    await patch(b.id, { status: 'open' });
    const v = await invoice(c.id, 3000, { number: 'V-1' });
    await patch(v.id, { status: 'void' });
    const d = await invoice(c.id, 4000, { number: 'D-1' });
    await patch(d.id, { status: 'uncollectible' });
    clock.set(new Date('2026-07-02T10:00:00Z'));
    await patch(d.id, { status: 'open' });
    await patch(a.id, { line_items: [InvoiceMother.line({ unit_amount: 12000 })] });

    // 7000 received, 5000 of it applied to A by hand: 2000 stays unapplied (the customer's credit).
    const payment = await app.post('/api/v1/payments', { customer_id: c.id, amount: 7000, payment_date: '2026-07-01', method: 'wire', auto_match: 'none' }, t.token);
    expect(payment.status).toBe(201);
    const matched = await app.post(`/api/v1/payments/${payment.body.id}/match`, { applications: [{ invoice_id: a.id, amount: 5000 }] }, t.token);
    expect(matched.status).toBe(200);

    expect(await ledger(c.id)).toEqual([
      { entry_date: '2026-06-01', type: 'invoice', reference: 'A-1', debit: 10000, credit: 0 }, // dated its issue date
      { entry_date: '2026-06-10', type: 'invoice', reference: 'B-1', debit: 5000, credit: 0 }, // finalized later, dated its issue date
      { entry_date: TODAY, type: 'invoice', reference: 'V-1', debit: 3000, credit: 0 },
      { entry_date: TODAY, type: 'void', reference: 'V-1', debit: 0, credit: 3000 },
      { entry_date: TODAY, type: 'invoice', reference: 'D-1', debit: 4000, credit: 0 },
      { entry_date: TODAY, type: 'write_off', reference: 'D-1', debit: 0, credit: 4000 },
      { entry_date: '2026-07-02', type: 'adjustment', reference: 'D-1', debit: 4000, credit: 0 }, // reopened
      { entry_date: '2026-07-02', type: 'adjustment', reference: 'A-1', debit: 2000, credit: 0 }, // lines edited
      { entry_date: '2026-07-01', type: 'payment', reference: expect.anything(), debit: 0, credit: 7000 }, // dated its payment date
    ]);

    const customer = (await app.get(`/api/v1/customers/${c.id}`, t.token)).body;
    const open = (await app.get(`/api/v1/invoices?customer_id=${c.id}&status=open,partially_paid&limit=100`, t.token)).body.data;
    const openAmountDue = open.reduce((sum: number, i: { amount_due: number }) => sum + i.amount_due, 0);
    const ledgerSum = (await ledger(c.id)).reduce((sum, e) => sum + e.debit - e.credit, 0);
    expect(openAmountDue).toBe(7000 + 5000 + 4000); // A: 12000 − 5000, B, D
    expect(customer.ar_summary.unapplied_payments).toBe(2000);
    expect(customer.balance).toBe(ledgerSum);
    expect(customer.balance).toBe(openAmountDue - customer.ar_summary.unapplied_payments);
    expect(customer.ar_summary).toMatchObject({
      balance: 14000,
      total_invoiced: 12000 + 5000 + 4000, // finalized and not void
      total_paid: 7000,
      last_payment: { id: payment.body.id, amount: 7000, payment_date: '2026-07-01' },
      open_invoice_count: 3,
    });

    // The invoice detail lists its payment applications.
    const detail = (await app.get(`/api/v1/invoices/${a.id}`, t.token)).body;
    expect(detail).toMatchObject({ status: 'partially_paid', amount_paid: 5000, amount_due: 7000 });
    expect(detail.payments).toEqual([{ payment_id: payment.body.id, application_id: expect.stringMatching(/^app_/), amount: 5000, applied_at: expect.any(String) }]);
    clock.set(new Date(`${TODAY}T12:00:00Z`));
  });

  it('average_days_to_pay uses the payment date of paid invoices', async () => {
    const c = (await app.post('/api/v1/customers', CustomerMother.request(), t.token)).body;
    const x = await invoice(c.id, 1000, { issue_date: '2026-06-01' });
    const y = await invoice(c.id, 2000, { issue_date: '2026-06-10' });
    for (const [inv, date] of [[x, '2026-06-11'], [y, '2026-06-25']] as const) {
      const p = await app.post('/api/v1/payments', { customer_id: c.id, amount: inv.total, payment_date: date, auto_match: 'none' }, t.token);
      expect((await app.post(`/api/v1/payments/${p.body.id}/match`, { applications: [{ invoice_id: inv.id }] }, t.token)).status).toBe(200);
    }
    const summary = (await app.get(`/api/v1/customers/${c.id}`, t.token)).body.ar_summary;
    expect(summary).toMatchObject({ average_days_to_pay: 12.5, open_invoice_count: 0, balance: 0, unapplied_payments: 0 }); // (10 + 15) / 2
  });

  it('keeps the ar_summary history figures equal to a recount of invoices and payments through reversals, re-matches, voids and parallel payments', async () => {
    const c = (await app.post('/api/v1/customers', CustomerMother.request(), t.token)).body;
    const x = await invoice(c.id, 1000, { issue_date: '2026-06-01' });
    const y = await invoice(c.id, 2000, { issue_date: '2026-06-10' });
    const z = await invoice(c.id, 3000, { issue_date: '2026-06-12' });
    const pay = async (amount: number, date: string, invoiceId?: string) => {
      const p = await app.post('/api/v1/payments', { customer_id: c.id, amount, payment_date: date, auto_match: 'none' }, t.token);
      expect(p.status).toBe(201);
      if (invoiceId) expect((await app.post(`/api/v1/payments/${p.body.id}/match`, { applications: [{ invoice_id: invoiceId }] }, t.token)).status).toBe(200);
      return (await app.get(`/api/v1/payments/${p.body.id}`, t.token)).body;
    };
    await pay(1000, '2026-06-11', x.id); // x paid after 10 days
    const wrong = await pay(2000, '2026-06-30', y.id); // y paid after 20 days ... then taken back
    expect((await app.delete(`/api/v1/payments/${wrong.id}/applications/${wrong.applications[0].id}`, t.token)).status).toBe(200);
    let summary = (await app.get(`/api/v1/customers/${c.id}`, t.token)).body.ar_summary;
    expect(summary).toMatchObject({ average_days_to_pay: 10, total_paid: 3000, unapplied_payments: 2000, total_invoiced: 6000 });
    expect(summary.last_payment).toEqual({ id: wrong.id, amount: 2000, payment_date: '2026-06-30' });

    // y paid again by a payment dated earlier (not the last payment): 5 days; z voided.
    await pay(2000, '2026-06-15', y.id);
    await patch(z.id, { status: 'void' });
    // Parallel payments on two new invoices, matched automatically by reference.
    const u = await invoice(c.id, 500, { issue_date: '2026-06-20', number: 'PAR-1' });
    const w = await invoice(c.id, 700, { issue_date: '2026-06-21', number: 'PAR-2' });
    const parallel = await Promise.all([
      app.post('/api/v1/payments', { customer_id: c.id, amount: 500, payment_date: '2026-06-28', reference: 'PAR-1' }, t.token),
      app.post('/api/v1/payments', { customer_id: c.id, amount: 700, payment_date: '2026-06-29', reference: 'PAR-2' }, t.token),
    ]);
    for (const r of parallel) expect(r.body.applications).toHaveLength(1);
    for (const inv of [u, w]) expect((await app.get(`/api/v1/invoices/${inv.id}`, t.token)).body.status).toBe('paid');
    // Unidentified cash that its reference identifies: the payment takes the customer on update.
    const v = await invoice(c.id, 300, { issue_date: '2026-06-22', number: 'UNID-1' });
    const unidentified = await app.post('/api/v1/payments', { amount: 300, currency: 'usd', payment_date: '2026-06-27', reference: 'UNID-1' }, t.token);
    expect(unidentified.body).toMatchObject({ customer_id: c.id, status: 'applied', applications: [{ invoice_id: v.id }] });
    summary = (await app.get(`/api/v1/customers/${c.id}`, t.token)).body.ar_summary;
    expect(summary).toMatchObject({
      total_invoiced: 1000 + 2000 + 500 + 700 + 300, // z void
      total_paid: 1000 + 2000 + 2000 + 500 + 700 + 300,
      unapplied_payments: 2000,
      average_days_to_pay: 7.2, // x 10, y 5 (the re-match counts), u and w 8, v 5: 36 / 5
      last_payment: { id: wrong.id, amount: 2000, payment_date: '2026-06-30' },
    });

    // What the triggers keep equals a recount from the rows themselves.
    const [stored] = await app.query(
      `SELECT total_invoiced::int, paid_invoice_count, paid_days_sum::int, total_paid::int, last_payment_id FROM customers WHERE tenant_id = $1 AND id = $2`,
      [t.tenant_id, c.id],
    );
    const [recount] = await app.query(
      `SELECT (SELECT SUM(total) FILTER (WHERE finalized_at IS NOT NULL AND status <> 'void') FROM invoices WHERE tenant_id = $1 AND customer_id = $2)::int AS total_invoiced,
              (SELECT COUNT(*) FILTER (WHERE status = 'paid') FROM invoices WHERE tenant_id = $1 AND customer_id = $2)::int AS paid_invoice_count,
              (SELECT SUM(paid_on - issue_date) FILTER (WHERE status = 'paid') FROM invoices WHERE tenant_id = $1 AND customer_id = $2)::int AS paid_days_sum,
              (SELECT SUM(amount) FROM payments WHERE tenant_id = $1 AND customer_id = $2)::int AS total_paid,
              (SELECT id FROM payments WHERE tenant_id = $1 AND customer_id = $2 ORDER BY payment_date DESC, id DESC LIMIT 1) AS last_payment_id`,
      [t.tenant_id, c.id],
    );
    expect(stored).toEqual(recount);
  });

  it('changes nothing, ledger included, when a change is refused', async () => {
    const c = (await app.post('/api/v1/customers', CustomerMother.request(), t.token)).body;
    const inv = await invoice(c.id, 1000);
    const before = await ledger(c.id);
    expectProblem(await app.patch(`/api/v1/invoices/${inv.id}`, { status: 'void', line_items: [InvoiceMother.line({ unit_amount: 999 })] }, t.token, { 'if-match': '"9"' }), 412, 'precondition_failed');
    expectProblem(await app.patch(`/api/v1/invoices/${inv.id}`, { line_items: [InvoiceMother.line({ unit_amount: 999 })], status: 'paid' }, t.token), 409, 'invalid_state');
    expect(await ledger(c.id)).toEqual(before);
    expect((await app.get(`/api/v1/customers/${c.id}`, t.token)).body.balance).toBe(1000);
  });

  it('keeps balance equal to the ledger sum under concurrent invoice edits and payments for one customer', async () => {
    const c = (await app.post('/api/v1/customers', CustomerMother.request(), t.token)).body;
    const invoices = await Promise.all([1, 2, 3, 4, 5, 6].map((i) => invoice(c.id, i * 1000)));
    const work = [
      ...invoices.map((inv, i) => app.patch(`/api/v1/invoices/${inv.id}`, { line_items: [InvoiceMother.line({ unit_amount: (i + 1) * 1000 + 500 })] }, t.token)),
      ...invoices.slice(0, 3).map((inv) => app.post('/api/v1/payments', { customer_id: c.id, amount: 700, remittance: [{ invoice_id: inv.id }] }, t.token)),
      app.patch(`/api/v1/invoices/${invoices[5].id}`, { status: 'uncollectible' }, t.token),
    ];
    const results = await Promise.all(work);
    // The last invoice gets a line edit and the uncollectible transition at once. Both serial orders
    // are legitimate, and which one the database picks depends on scheduling: edit then write-off
    // (both succeed), or write-off then edit — and an uncollectible invoice's lines cannot change
    // (contract: 409 invalid_state), so that edit is refused and changes nothing.
    const lastEdit = results[5];
    const lastEditFirst = lastEdit.status === 200;
    if (!lastEditFirst) expectProblem(lastEdit, 409, 'invalid_state');
    for (const r of results.filter((r) => r !== lastEdit)) expect([200, 201]).toContain(r.status);
    const last = (await app.get(`/api/v1/invoices/${invoices[5].id}`, t.token)).body;
    const lastTotal = lastEditFirst ? 6500 : 6000;
    expect(last).toMatchObject({ status: 'uncollectible', total: lastTotal });
    expect((await ledger(c.id)).filter((e) => e.reference === invoices[5].number).map(({ type, debit, credit }) => ({ type, debit, credit }))).toEqual([
      { type: 'invoice', debit: 6000, credit: 0 },
      ...(lastEditFirst ? [{ type: 'adjustment', debit: 500, credit: 0 }] : []),
      { type: 'write_off', debit: 0, credit: lastTotal },
    ]);
    const ledgerSum = (await ledger(c.id)).reduce((sum, e) => sum + e.debit - e.credit, 0);
    const customer = (await app.get(`/api/v1/customers/${c.id}`, t.token)).body;
    const open = (await app.get(`/api/v1/invoices?customer_id=${c.id}&status=open,partially_paid&limit=100`, t.token)).body.data;
    const openAmountDue = open.reduce((sum: number, i: { amount_due: number }) => sum + i.amount_due, 0);
    expect(customer.balance).toBe(ledgerSum);
    expect(customer.balance).toBe(openAmountDue - customer.ar_summary.unapplied_payments);
  });
});
