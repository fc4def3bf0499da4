import { TestApp, TestTenant } from '../../support/test-app';
import { Receivables } from './support';

/**
 * Cash application under concurrency (contract §8: the invariants hold "at every instant and
 * under any concurrency"): many requests in parallel over real HTTP, then the books are checked.
 */
describe('concurrent cash application', () => {
  let app: TestApp;
  let tenant: TestTenant;
  let r: Receivables;

  beforeAll(async () => {
    app = await TestApp.start();
    tenant = await app.createTenant();
    r = new Receivables(app, tenant);
  });
  afterAll(() => app.close());

  /** Σ active applications per invoice and per payment against the stored figures. */
  async function books(invoiceIds: string[], paymentIds: string[]) {
    const invoices = await app.query<{ id: string; total: number; amount_paid: number; applied: number; status: string }>(
      `SELECT i.id, i.total::int, i.amount_paid::int, i.status,
              COALESCE((SELECT SUM(a.amount) FROM payment_applications a
                         WHERE a.tenant_id = i.tenant_id AND a.invoice_id = i.id AND a.reversed_at IS NULL), 0)::int AS applied
         FROM invoices i WHERE i.tenant_id = $1 AND i.id = ANY($2)`,
      [tenant.tenant_id, invoiceIds],
    );
    const payments = await app.query<{ id: string; amount: number; amount_applied: number; applied: number }>(
      `SELECT p.id, p.amount::int, p.amount_applied::int,
              COALESCE((SELECT SUM(a.amount) FROM payment_applications a
                         WHERE a.tenant_id = p.tenant_id AND a.payment_id = p.id AND a.reversed_at IS NULL), 0)::int AS applied
         FROM payments p WHERE p.tenant_id = $1 AND p.id = ANY($2)`,
      [tenant.tenant_id, paymentIds],
    );
    for (const i of invoices) {
      expect(i.applied).toBe(i.amount_paid);
      expect(i.amount_paid).toBeLessThanOrEqual(i.total);
    }
    for (const p of payments) {
      expect(p.applied).toBe(p.amount_applied);
      expect(p.amount_applied).toBeLessThanOrEqual(p.amount);
    }
    return { invoices, payments };
  }

  it('serialises 40 parallel manual matches against one invoice: no over-application, only 200s and 409s', async () => {
    const c = await r.customer();
    const invoice = await r.invoice(c.id, 10_000);
    const payments: string[] = [];
    for (let i = 0; i < 40; i++) payments.push((await r.payment({ customer_id: c.id, amount: 700, auto_match: 'none' })).body.id);

    const results = await Promise.all(
      payments.map((id, i) =>
        app.post(`/api/v1/payments/${id}/match`, { applications: [{ invoice_id: invoice.id, ...(i % 2 ? { amount: 700 } : {}) }] }, tenant.token),
      ),
    );
    const statuses = results.map((res) => res.status);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(14);

    const { invoices } = await books([invoice.id], payments);
    // 14 × 700 = 9,800; the remaining 200 only goes to a request without an explicit amount.
    expect(invoices[0].amount_paid).toBeGreaterThanOrEqual(9_800);
    const detail = await r.getInvoice(invoice.id);
    expect(detail.amount_paid).toBe(detail.payments.reduce((s: number, p: any) => s + p.amount, 0));
    expect(detail.status).toBe(detail.amount_paid === 10_000 ? 'paid' : 'partially_paid');
  });

  it('keeps one payment whole under parallel matches to many invoices and reversals', async () => {
    const c = await r.customer();
    const invoices: any[] = [];
    for (let i = 0; i < 12; i++) invoices.push(await r.invoice(c.id, 1_000));
    const payment = (await r.payment({ customer_id: c.id, amount: 5_000, auto_match: 'none' })).body;
    const results = await Promise.all(invoices.map((inv) => app.post(`/api/v1/payments/${payment.id}/match`, { applications: [{ invoice_id: inv.id }] }, tenant.token)));
    expect(results.filter((res) => res.status === 200)).toHaveLength(5);
    expect(results.every((res) => res.status === 200 || res.status === 409)).toBe(true);

    const applied = (await r.getPayment(payment.id)).applications;
    const reversals = await Promise.all(
      [...applied, ...applied].map((a: any) => app.delete(`/api/v1/payments/${payment.id}/applications/${a.id}`, tenant.token)),
    );
    expect(reversals.filter((res) => res.status === 200)).toHaveLength(5);
    expect(reversals.filter((res) => res.status === 409)).toHaveLength(5);
    const { payments } = await books(invoices.map((i) => i.id), [payment.id]);
    expect(payments[0].amount_applied).toBe(0);
  });

  it('auto-matches parallel payments of one customer one after the other, each on fresh figures', async () => {
    const c = await r.customer();
    const invoices: any[] = [];
    for (let i = 0; i < 10; i++) invoices.push(await r.invoice(c.id, 1_000, { due_date: `2027-01-${String(10 + i).padStart(2, '0')}` }));
    // 9 × 1,234 = 11,106 > 10,000: the amounts never let exact_amount or combination fit, so
    // every payment goes oldest first on what the previous ones left.
    const results = await Promise.all(
      Array.from({ length: 9 }, () => r.payment({ customer_id: c.id, amount: 1_234, auto_match: 'oldest_first' })),
    );
    expect(results.map((res) => res.status)).toEqual(Array(9).fill(201));
    const ids = results.map((res) => res.body.id);
    const { invoices: after, payments } = await books(invoices.map((i) => i.id), ids);
    expect(after.every((i) => i.status === 'paid')).toBe(true);
    expect(payments.reduce((s, p) => s + p.amount_applied, 0)).toBe(10_000);
    expect(payments.filter((p) => p.amount_applied === 1_234)).toHaveLength(8);
    expect(payments.filter((p) => p.amount_applied === 128)).toHaveLength(1);
  });

  it('keeps the books when automatic and manual matches race for the same invoices', async () => {
    const c = await r.customer();
    const invoices: any[] = [];
    for (let i = 0; i < 3; i++) invoices.push(await r.invoice(c.id, 2_000));
    const manual: string[] = [];
    for (let i = 0; i < 10; i++) manual.push((await r.payment({ customer_id: c.id, amount: 300, auto_match: 'none' })).body.id);
    const results = await Promise.all([
      ...invoices.flatMap((inv) => Array.from({ length: 4 }, () => r.payment({ customer_id: c.id, amount: 500, remittance: [{ invoice_id: inv.id }] }))),
      ...manual.map((id, i) => app.post(`/api/v1/payments/${id}/match`, { applications: [{ invoice_id: invoices[i % 3].id }] }, tenant.token)),
    ]);
    expect(results.every((res) => [200, 201, 409].includes(res.status))).toBe(true);
    const autoIds = results.filter((res) => res.status === 201).map((res) => res.body.id);
    const { invoices: after } = await books(invoices.map((i) => i.id), [...autoIds, ...manual]);
    expect(after.every((i) => i.amount_paid <= 2_000)).toBe(true);
  });
});
