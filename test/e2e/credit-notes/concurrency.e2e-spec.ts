import { TestApp, TestTenant } from '../../support/test-app';
import { Credits } from './support';

/**
 * Contract §15's invariants under concurrency, with requests really sent in parallel: per invoice
 * amount_paid + amount_credited + amount_written_off ≤ total, per payment and per credit note
 * amount_applied + amount_refunded ≤ amount — never over-applied, no 5xx, no deadlock.
 */
describe('credit under concurrency', () => {
  let app: TestApp;
  let t: TestTenant;
  let r: Credits;

  beforeAll(async () => {
    app = await TestApp.start({ env: { WORKERS_ENABLED: 'false' } });
    t = await app.createTenant();
    r = new Credits(app, t);
  });
  afterAll(() => app.close());

  /** The customer's balance equals its open amount due less unapplied payments and the credit left on notes. */
  async function expectBalanceExplained(customerId: string): Promise<void> {
    const [row] = await app.query(
      `SELECT c.balance::bigint AS balance,
              (SELECT COALESCE(SUM(amount_due), 0) FROM invoices WHERE tenant_id = c.tenant_id AND customer_id = c.id AND status IN ('open', 'partially_paid'))
            - (SELECT COALESCE(SUM(amount - amount_applied - amount_refunded), 0) FROM payments WHERE tenant_id = c.tenant_id AND customer_id = c.id)
            - (SELECT COALESCE(SUM(amount_remaining), 0) FROM credit_notes WHERE tenant_id = c.tenant_id AND customer_id = c.id AND voided_at IS NULL) AS explained,
              (SELECT COALESCE(SUM(debit - credit), 0) FROM ledger_entries WHERE tenant_id = c.tenant_id AND customer_id = c.id) AS ledger
         FROM customers c WHERE c.tenant_id = $1 AND c.id = $2`,
      [t.tenant_id, customerId],
    );
    expect({ balance: Number(row.balance), ledger: Number(row.ledger) }).toEqual({ balance: Number(row.explained), ledger: Number(row.explained) });
  }

  it('20 parallel applications of payments and credit notes to one invoice settle it exactly once', async () => {
    const c = await r.customer();
    const invoice = await r.invoice(c.id, 10_000);
    const payments = [];
    const notes = [];
    for (let i = 0; i < 10; i++) {
      payments.push((await r.payment({ customer_id: c.id, amount: 1_500, auto_match: 'none' })).body);
      notes.push(await r.creditNote(c.id, { amount: 1_500 }));
    }
    const results = await Promise.all([
      ...payments.map((p) => app.post(`/api/v1/payments/${p.id}/match`, { applications: [{ invoice_id: invoice.id }] }, t.token)),
      ...notes.map((n) => r.applyCreditNote(n.id, [{ invoice_id: invoice.id }])),
    ]);
    const statuses = results.map((x) => x.status);
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    // 6 take 1,500 each, one takes the last 1,000; the rest find nothing due (409).
    expect(statuses.filter((s) => s === 200)).toHaveLength(7);
    expect(statuses.filter((s) => s === 409)).toHaveLength(13);

    const after = await r.getInvoice(invoice.id);
    expect(after).toMatchObject({ status: 'paid', amount_due: 0 });
    expect(after.amount_paid + after.amount_credited).toBe(10_000);
    expect(after.payments.reduce((s: number, p: any) => s + p.amount, 0)).toBe(after.amount_paid);
    expect(after.credit_notes.reduce((s: number, p: any) => s + p.amount, 0)).toBe(after.amount_credited);
    for (const n of notes) {
      const note = await r.getCreditNote(n.id);
      expect(note.amount_applied + note.amount_remaining).toBe(1_500);
    }
    await expectBalanceExplained(c.id);
  });

  it('parallel applications of one credit note to many invoices never use more than it has', async () => {
    const c = await r.customer();
    const invoices = [];
    for (let i = 0; i < 8; i++) invoices.push(await r.invoice(c.id, 1_000));
    const note = await r.creditNote(c.id, { amount: 5_000 });
    const results = await Promise.all(invoices.map((i) => r.applyCreditNote(note.id, [{ invoice_id: i.id, amount: 1_000 }])));
    expect(results.map((x) => x.status).sort()).toEqual([...Array(5).fill(200), ...Array(3).fill(409)]);
    expect(await r.getCreditNote(note.id)).toMatchObject({ status: 'applied', amount_applied: 5_000, amount_remaining: 0 });
    await expectBalanceExplained(c.id);
  });

  it('a void racing applications of the same credit note: one or the other, never both', async () => {
    const c = await r.customer();
    const invoice = await r.invoice(c.id, 5_000);
    for (let round = 0; round < 5; round++) {
      const note = await r.creditNote(c.id, { amount: 100 });
      const [applied, voided] = await Promise.all([r.applyCreditNote(note.id, [{ invoice_id: invoice.id }]), r.voidCreditNote(note.id)]);
      expect([applied.status, voided.status].sort()).toEqual([200, 409]);
      const final = await r.getCreditNote(note.id);
      expect(final.status === 'void' ? final.amount_applied : final.voided_at).toBe(final.status === 'void' ? 0 : null);
    }
    await expectBalanceExplained(c.id);
  });
});

describe('one currency per customer, credit notes too', () => {
  let app: TestApp;
  let t: TestTenant;
  let r: Credits;

  beforeAll(async () => {
    app = await TestApp.start({ env: { WORKERS_ENABLED: 'false' } });
    t = await app.createTenant();
    r = new Credits(app, t);
  });
  afterAll(() => app.close());

  it('holds while currency changes race credit notes: each request happens in the currency it saw, or is a 409', async () => {
    const customers = await Promise.all(Array.from({ length: 24 }, (_, i) => r.customer({ name: `Racer ${i}`, currency: 'eur' })));
    const responses = await Promise.all(
      customers.flatMap((c) => [r.createCreditNote({ customer_id: c.id, amount: 500 }), app.patch(`/api/v1/customers/${c.id}`, { currency: 'usd' }, t.token)]),
    );
    expect(responses.map((res) => res.status).filter((s) => ![200, 201, 409].includes(s))).toEqual([]);
    const mismatched = await app.query(
      `SELECT n.id FROM credit_notes n JOIN customers c ON c.tenant_id = n.tenant_id AND c.id = n.customer_id WHERE n.tenant_id = $1 AND n.currency <> c.currency`,
      [t.tenant_id],
    );
    expect(mismatched).toEqual([]);
  });
});
