import { FixedClock } from '../../../src/shared/domain/clock';
import { TestApp, TestTenant } from '../../support/test-app';
import { completed, postFile } from '../bank-statements/support';
import { Receivables } from './support';

const TODAY = '2026-06-30';

/**
 * Short-pay tolerance (contract §13) over HTTP: a payment short of its invoice by no more than
 * `min(amount, floor(percent × amount due / 100))` settles it, the difference written off
 * (reason short_pay) in the same transaction — for POST /payments and bank-file entries alike.
 */
describe('short-pay tolerance (§13)', () => {
  const clock = new FixedClock(new Date(`${TODAY}T12:00:00Z`));
  let app: TestApp;
  let t: TestTenant;
  let r: Receivables;

  beforeAll(async () => {
    app = await TestApp.start({ clock, env: { BANK_IMPORT_POLL_MS: '100' } });
    t = await app.createTenant();
    r = new Receivables(app, t);
    // 5.00, or 1 % of what is due, whichever is less.
    const res = await app.patch('/api/v1/settings', { cash_application: { short_pay_tolerance: { amount: 500, percent: 1 }, payer_name_matching: true } }, t.token);
    expect(res.status).toBe(200);
  });
  afterAll(() => app.close());

  const customer = async (id: string) => (await app.get(`/api/v1/customers/${id}`, t.token)).body;
  const events = async (aggregateId: string) =>
    (await app.query(`SELECT type FROM outbox WHERE tenant_id = $1 AND aggregate_id = $2 ORDER BY seq`, [t.tenant_id, aggregateId])).map((e: any) => e.type);

  it('within the tolerance: applies the payment, writes off the difference, the invoice is paid and the customer owes nothing', async () => {
    const c = await r.customer();
    const invoice = await r.invoice(c.id, 10_000, { issue_date: '2026-06-01' });
    const res = await r.payment({ customer_id: c.id, amount: 9_950, payment_date: '2026-06-20' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      status: 'applied',
      amount_applied: 9_950,
      amount_unapplied: 0,
      applications: [{ invoice_id: invoice.id, amount: 9_950, source: 'auto' }],
      match: {
        status: 'matched',
        rule: 'exact_amount',
        write_offs: [{ id: expect.stringMatching(/^wo_/), invoice_id: invoice.id, invoice_number: invoice.number, amount: 50, reason: 'short_pay' }],
      },
    });
    const after = await r.getInvoice(invoice.id);
    expect(after).toMatchObject({
      status: 'paid',
      amount_paid: 9_950,
      amount_written_off: 50,
      amount_due: 0,
      write_offs: [{ id: res.body.match.write_offs[0].id, amount: 50, reason: 'short_pay' }],
    });
    expect(await r.getPayment(res.body.id)).toEqual(res.body);

    const detail = await customer(c.id);
    expect(detail).toMatchObject({ balance: 0, ar_summary: { balance: 0, total_written_off: 50, open_invoice_count: 0 } });
    const statement = (await app.get(`/api/v1/customers/${c.id}/statement?from=2026-06-01&to=${TODAY}`, t.token)).body;
    expect(statement.lines.map((l: any) => [l.date, l.type, l.reference, l.debit, l.credit])).toEqual([
      ['2026-06-01', 'invoice', invoice.number, 10_000, 0],
      ['2026-06-20', 'payment', res.body.id, 0, 9_950],
      [TODAY, 'write_off', invoice.number, 0, 50],
    ]);
    expect(statement.closing_balance).toBe(0);

    // Events (and so webhooks) as for any write-off, and the payment's match.
    const invoiceEvents = await events(invoice.id);
    expect(invoiceEvents).toEqual(expect.arrayContaining(['invoice.written_off', 'invoice.paid']));
    expect(invoiceEvents[invoiceEvents.length - 1]).toBe('invoice.paid');
    expect(await events(res.body.id)).toEqual(['payment.created', 'payment.matched']);
    const [matched] = await app.query(`SELECT data FROM outbox WHERE tenant_id = $1 AND aggregate_id = $2 AND type = 'payment.matched'`, [t.tenant_id, res.body.id]);
    expect(matched.data.object.match.write_offs).toEqual(res.body.match.write_offs);
  });

  it('at the boundary (short by exactly the tolerance) settles; one unit beyond applies nothing by amount', async () => {
    const c = await r.customer();
    const atBoundary = await r.invoice(c.id, 20_000);
    const res = await r.payment({ customer_id: c.id, amount: 19_800 });
    expect(res.body.match).toMatchObject({ status: 'matched', rule: 'exact_amount', write_offs: [{ invoice_id: atBoundary.id, amount: 200 }] });
    expect(await r.getInvoice(atBoundary.id)).toMatchObject({ status: 'paid', amount_written_off: 200 });

    const beyond = await r.invoice(c.id, 30_000);
    const short = await r.payment({ customer_id: c.id, amount: 29_699 });
    expect(short.body).toMatchObject({ status: 'unapplied', match: { status: 'unmatched', rule: null, write_offs: [] } });
    expect(await r.getInvoice(beyond.id)).toMatchObject({ status: 'open', amount_written_off: 0, amount_due: 30_000 });
    expect((await customer(c.id)).balance).toBe(30_000 - 29_699);
  });

  it('beyond the tolerance by reference: applies what was paid, writes nothing off, the rest stays due', async () => {
    const c = await r.customer();
    const invoice = await r.invoice(c.id, 10_000);
    const res = await r.payment({ customer_id: c.id, amount: 9_000, reference: `Payment for ${invoice.number}` });
    expect(res.body).toMatchObject({ status: 'applied', match: { status: 'matched', rule: 'reference', write_offs: [] } });
    expect(await r.getInvoice(invoice.id)).toMatchObject({ status: 'partially_paid', amount_due: 1_000, amount_written_off: 0 });
  });

  it('never for an over-payment: the rest is the customer’s credit', async () => {
    const c = await r.customer();
    const invoice = await r.invoice(c.id, 10_000);
    const res = await r.payment({ customer_id: c.id, amount: 10_040, reference: invoice.number });
    expect(res.body).toMatchObject({ status: 'partially_applied', amount_unapplied: 40, match: { status: 'partial', write_offs: [] } });
    expect(await r.getInvoice(invoice.id)).toMatchObject({ status: 'paid', amount_written_off: 0 });
  });

  it('never when ambiguous: two invoices within the tolerance → needs_review with both, nothing applied or written off', async () => {
    const c = await r.customer();
    const a = await r.invoice(c.id, 40_000);
    const b = await r.invoice(c.id, 40_100);
    const res = await r.payment({ customer_id: c.id, amount: 39_900 });
    expect(res.body).toMatchObject({ status: 'unapplied', applications: [], match: { status: 'needs_review', rule: 'exact_amount', write_offs: [] } });
    expect(res.body.match.suggestions.map((s: any) => s.invoice_ids[0]).sort()).toEqual([a.id, b.id].sort());
    expect(res.body.match.suggestions[0]).toMatchObject({ confidence: 0.5, reason: expect.stringContaining('short-pay tolerance') });
    for (const id of [a.id, b.id]) expect(await r.getInvoice(id)).toMatchObject({ status: 'open', amount_written_off: 0 });
    expect(await events(res.body.id)).toEqual(['payment.created', 'payment.needs_review']);
  });

  it('settles a bank-file entry the same way (CSV, invoice number in the text, payer by account)', async () => {
    const c = await r.customer({ name: 'Short Pay Traders Ltd', payer_accounts: ['GB29NWBK60161331926819'] });
    const invoice = await r.invoice(c.id, 125_000, { number: 'SP-2026-0042', issue_date: '2026-06-02' });
    const csv = [
      'date,amount,currency,reference,payer_name,payer_account,bank_entry_id',
      // 1,250.00 less a 4.50 bank charge deducted by the payer's bank
      `2026-06-25,1245.50,USD,"INV SP-2026-0042 less charges",SHORT PAY TRADERS LTD,GB29 NWBK 6016 1331 9268 19,SP-TX-1`,
    ].join('\n');
    const posted = await postFile(app, t, 'csv', csv);
    expect(posted.status).toBe(202);
    const done = await completed(app, t, posted.body.id);
    expect(done).toMatchObject({ payments_created: 1, matched: 1, needs_review: 0, unmatched: 0 });

    const [payment] = (await app.get(`/api/v1/payments?customer_id=${c.id}`, t.token)).body.data;
    expect(payment).toMatchObject({
      amount: 124_550,
      payment_date: '2026-06-25',
      bank_entry_id: 'SP-TX-1',
      match: { status: 'matched', rule: 'reference', write_offs: [{ invoice_id: invoice.id, amount: 450, reason: 'short_pay' }] },
    });
    expect(await r.getInvoice(invoice.id)).toMatchObject({ status: 'paid', amount_paid: 124_550, amount_written_off: 450, amount_due: 0 });
    expect((await customer(c.id)).balance).toBe(0);
    const statement = (await app.get(`/api/v1/customers/${c.id}/statement?from=2026-06-01&to=${TODAY}`, t.token)).body;
    expect(statement.lines.map((l: any) => [l.type, l.debit, l.credit])).toEqual([
      ['invoice', 125_000, 0],
      ['payment', 0, 124_550],
      ['write_off', 0, 450],
    ]);
    expect(statement.closing_balance).toBe(0);
  });

  it('does nothing of the kind when the tenant has no tolerance', async () => {
    const other = await app.createTenant('No tolerance');
    const o = new Receivables(app, other);
    const c = await o.customer();
    const invoice = await o.invoice(c.id, 10_000);
    const res = await o.payment({ customer_id: c.id, amount: 9_990, reference: invoice.number });
    expect(res.body.match).toMatchObject({ status: 'matched', rule: 'reference', write_offs: [] });
    expect(await o.getInvoice(invoice.id)).toMatchObject({ status: 'partially_paid', amount_due: 10 });
  });
});
