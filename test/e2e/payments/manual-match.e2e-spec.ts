import { expectProblem, TestApp, TestTenant } from '../../support/test-app';
import { Receivables } from './support';

/** POST /payments/:id/match (all or nothing) and DELETE /payments/:id/applications/:application_id. */
describe('manual cash application', () => {
  let app: TestApp;
  let tenant: TestTenant;
  let r: Receivables;

  beforeAll(async () => {
    app = await TestApp.start();
    tenant = await app.createTenant();
    r = new Receivables(app, tenant);
  });
  afterAll(() => app.close());

  const match = (paymentId: string, applications: unknown[], token = tenant.token) =>
    app.post(`/api/v1/payments/${paymentId}/match`, { applications }, token);

  /** A customer, an unapplied payment of `amount` and open invoices of the given totals. */
  async function setup(amount: number, totals: number[]) {
    const c = await r.customer();
    const invoices = [];
    for (const t of totals) invoices.push(await r.invoice(c.id, t));
    const payment = (await r.payment({ customer_id: c.id, amount, auto_match: 'none' })).body;
    return { c, payment, invoices };
  }

  it('applies by hand with default amounts and returns the payment and the updated invoices', async () => {
    const { payment, invoices: [a, b] } = await setup(10_000, [6_000, 7_000]);
    const res = await match(payment.id, [{ invoice_id: a.id }, { invoice_id: b.id }]);
    expect(res.status).toBe(200);
    expect(res.body.payment).toMatchObject({
      id: payment.id,
      status: 'applied',
      amount_applied: 10_000,
      amount_unapplied: 0,
      match: { status: 'matched', rule: 'manual', suggestions: [] },
    });
    expect(res.body.payment.applications.map((x: any) => [x.invoice_id, x.amount, x.source])).toEqual([
      [a.id, 6_000, 'manual'],
      [b.id, 4_000, 'manual'],
    ]);
    expect(res.body.invoices.map((i: any) => [i.id, i.status, i.amount_paid, i.amount_due])).toEqual([
      [a.id, 'paid', 6_000, 0],
      [b.id, 'partially_paid', 4_000, 3_000],
    ]);
    expect(res.body.payment).toEqual(await r.getPayment(payment.id));
    const detail = await r.getInvoice(b.id);
    expect(detail.payments).toEqual([{ payment_id: payment.id, application_id: res.body.payment.applications[1].id, amount: 4_000, applied_at: expect.any(String) }]);
  });

  it('takes an explicit amount and can be called again for the rest', async () => {
    const { payment, invoices: [a] } = await setup(5_000, [9_000]);
    expect((await match(payment.id, [{ invoice_id: a.id, amount: 1_000 }])).body.payment).toMatchObject({ status: 'partially_applied', match: { status: 'partial' } });
    expect((await match(payment.id, [{ invoice_id: a.id }])).body.payment).toMatchObject({ status: 'applied', amount_applied: 5_000 });
    expect(await r.getInvoice(a.id)).toMatchObject({ status: 'partially_paid', amount_paid: 5_000 });
  });

  it('identifies the customer of unidentified cash', async () => {
    const c = await r.customer();
    const a = await r.invoice(c.id, 2_000);
    const payment = (await r.payment({ amount: 2_500, currency: 'usd' })).body;
    expect(payment.customer_id).toBeNull();
    const res = await match(payment.id, [{ invoice_id: a.id }]);
    expect(res.body.payment).toMatchObject({ customer_id: c.id, amount_unapplied: 500 });
    expect((await app.get(`/api/v1/customers/${c.id}`, tenant.token)).body).toMatchObject({ balance: -500, ar_summary: { unapplied_payments: 500 } });
  });

  describe('refusals (nothing changes)', () => {
    async function expectUnchanged(paymentId: string, invoiceIds: string[]) {
      expect(await r.getPayment(paymentId)).toMatchObject({ amount_applied: 0, applications: [] });
      for (const id of invoiceIds) expect((await r.getInvoice(id)).amount_paid).toBe(0);
    }

    it('404 for an unknown, malformed or other tenant’s invoice, and for an unknown payment', async () => {
      const { payment, invoices: [a] } = await setup(1_000, [1_000]);
      const other = new Receivables(app, await app.createTenant('Other'));
      const foreign = await other.invoice((await other.customer()).id, 1_000);
      for (const invoiceId of ['inv_01jc9x7m3ef0ab6yr2t0n4q8zd', 'not-an-id', foreign.id]) {
        expectProblem(await match(payment.id, [{ invoice_id: a.id }, { invoice_id: invoiceId }]), 404, 'not_found');
      }
      expectProblem(await match('pay_01jc9x7m3ef0ab6yr2t0n4q8zd', [{ invoice_id: a.id }]), 404, 'not_found');
      expectProblem(await match(payment.id, [{ invoice_id: a.id }], other.tenant.token), 404, 'not_found');
      await expectUnchanged(payment.id, [a.id]);
      expect((await other.getInvoice(foreign.id)).amount_paid).toBe(0);
    });

    it('409 for an invoice of another customer', async () => {
      const { payment, invoices: [a] } = await setup(2_000, [1_000]);
      const stranger = await r.invoice((await r.customer()).id, 1_000);
      expectProblem(await match(payment.id, [{ invoice_id: a.id }, { invoice_id: stranger.id }]), 409, 'conflict');
      await expectUnchanged(payment.id, [a.id, stranger.id]);
    });

    it('409 for an invoice in another currency', async () => {
      const euro = await r.customer({ currency: 'eur' });
      const invoice = await r.invoice(euro.id, 1_000);
      const payment = (await r.payment({ amount: 1_000, currency: 'usd' })).body;
      expectProblem(await match(payment.id, [{ invoice_id: invoice.id }]), 409, 'conflict');
      await expectUnchanged(payment.id, [invoice.id]);
    });

    it.each([
      ['paid', async (id: string, c: string) => void (await r.payment({ customer_id: c, amount: 1_000, remittance: [{ invoice_id: id }] }))],
      ['void', async (id: string) => void (await app.patch(`/api/v1/invoices/${id}`, { status: 'void' }, tenant.token))],
      ['uncollectible', async (id: string) => void (await app.patch(`/api/v1/invoices/${id}`, { status: 'uncollectible' }, tenant.token))],
    ])('409 for a %s invoice', async (status, makeIt) => {
      const { c, payment, invoices: [a] } = await setup(1_000, [1_000]);
      await makeIt(a.id, c.id);
      expect((await r.getInvoice(a.id)).status).toBe(status);
      expectProblem(await match(payment.id, [{ invoice_id: a.id }]), 409, 'invalid_state');
      expect((await r.getPayment(payment.id)).amount_applied).toBe(0);
    });

    it('409 for a draft invoice', async () => {
      const c = await r.customer();
      const draft = await r.invoice(c.id, 1_000, { status: 'draft' });
      const payment = (await r.payment({ customer_id: c.id, amount: 1_000, auto_match: 'none' })).body;
      expectProblem(await match(payment.id, [{ invoice_id: draft.id }]), 409, 'invalid_state');
    });

    it('409 for more than the invoice’s amount due', async () => {
      const { payment, invoices: [a] } = await setup(5_000, [1_000]);
      expectProblem(await match(payment.id, [{ invoice_id: a.id, amount: 1_001 }]), 409, 'conflict');
      await expectUnchanged(payment.id, [a.id]);
    });

    it('409 for more than the payment’s unapplied amount, all or nothing across lines', async () => {
      const { payment, invoices: [a, b] } = await setup(1_500, [1_000, 1_000]);
      expectProblem(await match(payment.id, [{ invoice_id: a.id, amount: 1_000 }, { invoice_id: b.id, amount: 600 }]), 409, 'conflict');
      await expectUnchanged(payment.id, [a.id, b.id]);
      await match(payment.id, [{ invoice_id: a.id }]);
      await match(payment.id, [{ invoice_id: b.id }]);
      expectProblem(await match(payment.id, [{ invoice_id: b.id, amount: 1 }]), 409, 'conflict');
    });

    it.each([
      ['no applications', []],
      ['amount 0', [{ invoice_id: 'inv_01jc9x7m3ef0ab6yr2t0n4q8zd', amount: 0 }]],
      ['an unknown field', [{ invoice_id: 'inv_01jc9x7m3ef0ab6yr2t0n4q8zd', share: 1 }]],
    ])('400 for %s', async (_name, applications) => {
      const { payment } = await setup(1_000, []);
      expectProblem(await match(payment.id, applications), 400, 'validation_failed');
    });

    it('400 for one invoice listed twice', async () => {
      const { payment, invoices: [a] } = await setup(1_000, [1_000]);
      expectProblem(await match(payment.id, [{ invoice_id: a.id, amount: 1 }, { invoice_id: a.id, amount: 1 }]), 400, 'validation_failed');
    });
  });

  describe('reversal', () => {
    it('reverses one application: the invoice owes it again and the payment has it unapplied', async () => {
      const { payment, invoices: [a, b] } = await setup(8_000, [5_000, 5_000]);
      const matched = (await match(payment.id, [{ invoice_id: a.id }, { invoice_id: b.id }])).body.payment;
      const [appA, appB] = matched.applications;

      const res = await app.delete(`/api/v1/payments/${payment.id}/applications/${appB.id}`, tenant.token);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'partially_applied', amount_applied: 5_000, amount_unapplied: 3_000, match: { status: 'partial' } });
      expect(res.body.applications.map((x: any) => x.id)).toEqual([appA.id]);
      expect(await r.getInvoice(b.id)).toMatchObject({ status: 'open', amount_paid: 0, payments: [] });

      expect((await app.delete(`/api/v1/payments/${payment.id}/applications/${appA.id}`, tenant.token)).body).toMatchObject({
        status: 'unapplied',
        match: { status: 'unmatched', rule: null },
      });
      expect(await r.getInvoice(a.id)).toMatchObject({ status: 'open', amount_paid: 0 });

      const events = await app.query<{ type: string }>(`SELECT type FROM outbox WHERE tenant_id = $1 AND aggregate_id = $2 ORDER BY seq`, [tenant.tenant_id, payment.id]);
      expect(events.map((e) => e.type)).toEqual(['payment.created', 'payment.matched', 'payment.application_reversed', 'payment.application_reversed']);
      // Reversal moves no balance (§9): only the payment's own credit is in the ledger.
      const ledger = await app.query(`SELECT type FROM ledger_entries WHERE tenant_id = $1 AND source_id = $2`, [tenant.tenant_id, payment.id]);
      expect(ledger).toEqual([{ type: 'payment' }]);
    });

    it('turns a paid invoice back to partially paid', async () => {
      const c = await r.customer();
      const a = await r.invoice(c.id, 3_000);
      const first = (await r.payment({ customer_id: c.id, amount: 1_000, remittance: [{ invoice_id: a.id }] })).body;
      const second = (await r.payment({ customer_id: c.id, amount: 2_000, remittance: [{ invoice_id: a.id }] })).body;
      expect((await r.getInvoice(a.id)).status).toBe('paid');
      await app.delete(`/api/v1/payments/${second.id}/applications/${second.applications[0].id}`, tenant.token);
      expect(await r.getInvoice(a.id)).toMatchObject({ status: 'partially_paid', amount_paid: 1_000 });
      expect(first.status).toBe('applied');
    });

    it('404 for an unknown application or another tenant’s payment, 409 once reversed', async () => {
      const { payment, invoices: [a] } = await setup(1_000, [1_000]);
      const app1 = (await match(payment.id, [{ invoice_id: a.id }])).body.payment.applications[0];
      expectProblem(await app.delete(`/api/v1/payments/${payment.id}/applications/app_01jc9x7m3ef0ab6yr2t0n4q8zd`, tenant.token), 404, 'not_found');
      const other = await app.createTenant('Other');
      expectProblem(await app.delete(`/api/v1/payments/${payment.id}/applications/${app1.id}`, other.token), 404, 'not_found');
      expect((await app.delete(`/api/v1/payments/${payment.id}/applications/${app1.id}`, tenant.token)).status).toBe(200);
      expectProblem(await app.delete(`/api/v1/payments/${payment.id}/applications/${app1.id}`, tenant.token), 409, 'invalid_state');
    });
  });

  it('keeps the database invariants: Σ applications = amount_applied ≤ amount and = amount_paid ≤ total', async () => {
    const rows = await app.query<{ bad: number }>(
      `SELECT count(*)::int AS bad FROM (
         SELECT p.id FROM payments p
           LEFT JOIN payment_applications a ON a.tenant_id = p.tenant_id AND a.payment_id = p.id AND a.reversed_at IS NULL
          GROUP BY p.tenant_id, p.id HAVING COALESCE(SUM(a.amount), 0) <> max(p.amount_applied) OR max(p.amount_applied) > max(p.amount)
         UNION ALL
         SELECT i.id FROM invoices i
           LEFT JOIN payment_applications a ON a.tenant_id = i.tenant_id AND a.invoice_id = i.id AND a.reversed_at IS NULL
          GROUP BY i.tenant_id, i.id HAVING COALESCE(SUM(a.amount), 0) <> max(i.amount_paid) OR max(i.amount_paid) > max(i.total)) x`,
    );
    expect(rows[0].bad).toBe(0);
  });
});
