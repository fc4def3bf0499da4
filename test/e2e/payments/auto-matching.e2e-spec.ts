import { FixedClock } from '../../../src/shared/domain/clock';
import { expectProblem, TestApp, TestTenant } from '../../support/test-app';
import { Receivables } from './support';

/** Automatic cash application on POST /payments (contract §8), one rule at a time, over HTTP. */
describe('POST /payments: automatic matching', () => {
  let app: TestApp;
  let tenant: TestTenant;
  let r: Receivables;
  const clock = new FixedClock(new Date('2026-03-15T12:00:00Z'));

  beforeAll(async () => {
    app = await TestApp.start({ clock });
    tenant = await app.createTenant();
    r = new Receivables(app, tenant);
  });
  afterAll(() => app.close());

  const appliedTo = (payment: any) => payment.applications.map((a: any) => [a.invoice_number, a.amount]);

  describe('rule 1: remittance', () => {
    it('applies the listed invoices in order, amounts as given or their amount due, and keeps the rest as credit', async () => {
      const c = await r.customer();
      const a = await r.invoice(c.id, 4_000);
      const b = await r.invoice(c.id, 6_000);
      const res = await r.payment({
        customer_id: c.id,
        amount: 12_000,
        remittance: [{ invoice_number: b.number.toLowerCase(), amount: 2_500 }, { invoice_id: a.id }],
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        customer_id: c.id,
        amount: 12_000,
        currency: 'usd',
        status: 'partially_applied',
        amount_applied: 6_500,
        amount_unapplied: 5_500,
        match: { status: 'partial', rule: 'remittance', suggestions: [] },
        remittance: [{ invoice_number: b.number.toLowerCase(), amount: 2_500 }, { invoice_id: a.id }],
      });
      expect(appliedTo(res.body)).toEqual([[b.number, 2_500], [a.number, 4_000]]);
      expect(res.body.applications.every((x: any) => x.source === 'auto' && x.id.startsWith('app_'))).toBe(true);
      expect(await r.getInvoice(a.id)).toMatchObject({ status: 'paid', amount_paid: 4_000, amount_due: 0 });
      expect(await r.getInvoice(b.id)).toMatchObject({ status: 'partially_paid', amount_paid: 2_500, amount_due: 3_500 });
    });

    it('pays a disputed invoice the payer names', async () => {
      const c = await r.customer();
      const a = await r.invoice(c.id, 3_000);
      expect((await app.patch(`/api/v1/invoices/${a.id}`, { dispute: { status: 'open', reason: 'damaged' } }, tenant.token)).status).toBe(200);
      const res = await r.payment({ customer_id: c.id, amount: 3_000, remittance: [{ invoice_id: a.id }] });
      expect(res.body).toMatchObject({ status: 'applied', match: { status: 'matched', rule: 'remittance' } });
    });
  });

  describe('rule 2: reference', () => {
    it('applies invoice numbers found in the reference, oldest due first', async () => {
      const c = await r.customer();
      const late = await r.invoice(c.id, 5_000, { due_date: '2026-05-01' });
      const early = await r.invoice(c.id, 5_000, { due_date: '2026-04-01' });
      const digits = (n: string) => String(Number(n.replace(/\D/g, '')));
      const res = await r.payment({ customer_id: c.id, amount: 8_000, reference: `ACH ACME CORP inv ${digits(late.number)} & #${digits(early.number)}` });
      expect(res.body).toMatchObject({ status: 'applied', match: { status: 'matched', rule: 'reference' }, amount_applied: 8_000 });
      expect(appliedTo(res.body)).toEqual([[early.number, 5_000], [late.number, 3_000]]);
    });

    it('identifies the customer of an unidentified payment by the invoice numbers in its reference', async () => {
      const c = await r.customer();
      const a = await r.invoice(c.id, 2_000);
      const res = await r.payment({ amount: 2_000, currency: 'USD', reference: `Payment ${a.number.replace('-', '')} thank you` });
      expect(res.body).toMatchObject({ customer_id: c.id, currency: 'usd', status: 'applied', match: { status: 'matched', rule: 'reference' } });
      // The payment is now the customer's: its credit is in the ledger and the balance.
      const customer = (await app.get(`/api/v1/customers/${c.id}`, tenant.token)).body;
      expect(customer).toMatchObject({ balance: 0, ar_summary: { total_paid: 2_000, unapplied_payments: 0 } });
    });

    it('leaves a payment unidentified when its reference names no invoice of the tenant', async () => {
      const other = await app.createTenant('Other');
      const otherInvoice = await new Receivables(app, other).invoice((await new Receivables(app, other).customer()).id, 1_000);
      const res = await r.payment({ amount: 1_000, currency: 'usd', reference: `${otherInvoice.number} INV-999999` });
      expect(res.body).toMatchObject({ customer_id: null, status: 'unapplied', match: { status: 'unmatched', rule: null } });
    });
  });

  describe('rule 3: exact amount', () => {
    it('applies to the one open invoice whose amount due equals the payment', async () => {
      const c = await r.customer();
      await r.invoice(c.id, 1_111);
      const exact = await r.invoice(c.id, 2_222);
      const res = await r.payment({ customer_id: c.id, amount: 2_222 });
      expect(res.body).toMatchObject({ status: 'applied', match: { status: 'matched', rule: 'exact_amount' } });
      expect(appliedTo(res.body)).toEqual([[exact.number, 2_222]]);
    });

    it('asks for review when two invoices fit, applying nothing', async () => {
      const c = await r.customer();
      const a = await r.invoice(c.id, 3_333, { due_date: '2026-04-02' });
      const b = await r.invoice(c.id, 3_333, { due_date: '2026-04-01' });
      const res = await r.payment({ customer_id: c.id, amount: 3_333 });
      expect(res.body).toMatchObject({
        status: 'unapplied',
        amount_applied: 0,
        applications: [],
        match: { status: 'needs_review', rule: 'exact_amount', suggestions: [{ invoice_ids: [b.id], rule: 'exact_amount' }, { invoice_ids: [a.id], rule: 'exact_amount' }] },
      });
      expect((await r.getInvoice(a.id)).amount_paid).toBe(0);
      // Contract §8/§10: the review is announced, with what the match was before.
      const events = await app.query<{ type: string; data: any }>(`SELECT type, data FROM outbox WHERE tenant_id = $1 AND aggregate_id = $2 ORDER BY seq`, [tenant.tenant_id, res.body.id]);
      expect(events.map((e) => e.type)).toEqual(['payment.created', 'payment.needs_review']);
      expect(events[1].data.object).toEqual(res.body);
      expect(events[1].data.previous_attributes).toMatchObject({ match: { status: 'unmatched', rule: null, suggestions: [] } });
      // A person confirms one suggestion with a manual match.
      const confirmed = await app.post(`/api/v1/payments/${res.body.id}/match`, { applications: [{ invoice_id: b.id }] }, tenant.token);
      expect(confirmed.body.payment).toMatchObject({ status: 'applied', match: { status: 'matched', rule: 'manual', suggestions: [] } });
    });

    it('skips disputed invoices the payment does not name', async () => {
      const c = await r.customer();
      const disputed = await r.invoice(c.id, 4_444);
      await app.patch(`/api/v1/invoices/${disputed.id}`, { dispute: { status: 'open', reason: 'wrong quantity' } }, tenant.token);
      const res = await r.payment({ customer_id: c.id, amount: 4_444 });
      expect(res.body).toMatchObject({ status: 'unapplied', match: { status: 'unmatched', rule: null } });
    });
  });

  describe('rule 4: combination', () => {
    it('applies the one smallest set of invoices that sums to the payment', async () => {
      const c = await r.customer();
      const a = await r.invoice(c.id, 1_200);
      await r.invoice(c.id, 5_000);
      const b = await r.invoice(c.id, 2_300);
      const res = await r.payment({ customer_id: c.id, amount: 3_500 });
      expect(res.body).toMatchObject({ status: 'applied', match: { status: 'matched', rule: 'combination' } });
      expect(appliedTo(res.body).sort()).toEqual([[a.number, 1_200], [b.number, 2_300]].sort());
    });

    it('asks for review when two sets of the same size fit', async () => {
      const c = await r.customer();
      const inv = [];
      for (const amount of [1_000, 4_000, 2_000, 3_000]) inv.push(await r.invoice(c.id, amount));
      const res = await r.payment({ customer_id: c.id, amount: 5_000 });
      expect(res.body).toMatchObject({ status: 'unapplied', match: { status: 'needs_review', rule: 'combination' } });
      const sets = res.body.match.suggestions.map((s: any) => [...s.invoice_ids].sort()).sort();
      expect(sets).toEqual([[inv[0].id, inv[1].id].sort(), [inv[2].id, inv[3].id].sort()].sort());
      const [event] = await app.query(`SELECT data FROM outbox WHERE tenant_id = $1 AND aggregate_id = $2 AND type = 'payment.needs_review'`, [tenant.tenant_id, res.body.id]);
      expect(event.data.object.match).toEqual(res.body.match);
    });
  });

  describe('rule 5: oldest first', () => {
    it('applies oldest first when the payment asks for it and rules 3-4 are ambiguous (contract §8)', async () => {
      const c = await r.customer();
      const inv = [];
      for (let i = 0; i < 20; i++) inv.push(await r.invoice(c.id, 1_000, { due_date: `2026-04-${String(i + 1).padStart(2, '0')}` }));
      // Each payment of 1,500 after the first finds many pairs (500 left on one invoice + 1,000) summing to it.
      const results = [];
      for (let i = 0; i < 20; i++) results.push((await r.payment({ customer_id: c.id, amount: 1_500, auto_match: 'oldest_first' })).body);
      // 20,000 owed: thirteen payments apply 1,500 each and the fourteenth the last 500, oldest first;
      // before, every second one (a pair fits) stopped at needs_review and 1,500 was applied in all.
      expect(results.map((p) => [p.amount_applied, p.match.status, p.match.rule])).toEqual([
        ...Array.from({ length: 13 }, () => [1_500, 'matched', 'oldest_first']),
        [500, 'partial', 'oldest_first'],
        ...Array.from({ length: 6 }, () => [0, 'unmatched', null]),
      ]);
      for (const i of inv) expect((await r.getInvoice(i.id)).status).toBe('paid');
      const ambiguous = await r.payment({ customer_id: c.id, amount: 5_000 }); // nothing open left: strict stays unmatched
      expect(ambiguous.body.match).toMatchObject({ status: 'unmatched' });
    });

    it('still asks for review without oldest_first', async () => {
      const c = await r.customer();
      for (const amount of [500, 1_000, 1_000]) await r.invoice(c.id, amount);
      const res = await r.payment({ customer_id: c.id, amount: 1_500 });
      expect(res.body).toMatchObject({ amount_applied: 0, match: { status: 'needs_review', rule: 'combination' } });
    });

    it('applies oldest due first only when the payment asks for it, and leaves an overpayment as credit', async () => {
      const c = await r.customer();
      const newer = await r.invoice(c.id, 3_000, { due_date: '2026-04-10' });
      const older = await r.invoice(c.id, 3_000, { due_date: '2026-04-01' });
      const strict = await r.payment({ customer_id: c.id, amount: 4_000 });
      expect(strict.body).toMatchObject({ status: 'unapplied', match: { status: 'unmatched' } });

      const res = await r.payment({ customer_id: c.id, amount: 10_000, auto_match: 'oldest_first' });
      expect(res.body).toMatchObject({ auto_match: 'oldest_first', amount_applied: 6_000, amount_unapplied: 4_000, match: { status: 'partial', rule: 'oldest_first' } });
      expect(appliedTo(res.body)).toEqual([[older.number, 3_000], [newer.number, 3_000]]);
      const customer = (await app.get(`/api/v1/customers/${c.id}`, tenant.token)).body;
      // 6,000 invoiced − 14,000 received: 8,000 of credit (both payments' unapplied parts).
      expect(customer).toMatchObject({ balance: -8_000, ar_summary: { unapplied_payments: 8_000, total_paid: 14_000, last_payment: { amount: 10_000 } } });
    });
  });

  it('matches nothing with auto_match "none"', async () => {
    const c = await r.customer();
    const a = await r.invoice(c.id, 1_500);
    const res = await r.payment({ customer_id: c.id, amount: 1_500, auto_match: 'none', remittance: [{ invoice_id: a.id }] });
    expect(res.body).toMatchObject({ status: 'unapplied', match: { status: 'unmatched', rule: null } });
  });

  it('records payment.created, payment.matched and the invoice events in the outbox of the same transaction', async () => {
    const c = await r.customer();
    const a = await r.invoice(c.id, 7_777);
    const res = await r.payment({ customer_id: c.id, amount: 7_777 });
    const events = await app.query<{ type: string; aggregate_id: string; data: any }>(
      `SELECT type, aggregate_id, data FROM outbox WHERE tenant_id = $1 AND aggregate_id = ANY($2) ORDER BY seq`,
      [tenant.tenant_id, [res.body.id, a.id]],
    );
    const types = events.map((e) => `${e.type}:${e.aggregate_id === a.id ? 'invoice' : 'payment'}`);
    expect(types).toEqual(['invoice.created:invoice', 'invoice.finalized:invoice', 'payment.created:payment', 'invoice.updated:invoice', 'invoice.paid:invoice', 'payment.matched:payment']);
    const matched = events.find((e) => e.type === 'payment.matched')!;
    expect(matched.data.object).toEqual(res.body);
    expect(matched.data.previous_attributes).toMatchObject({ status: 'unapplied', amount_applied: 0, applications: [] });
    const ledger = await app.query(`SELECT type, entry_date::text, credit::int FROM ledger_entries WHERE tenant_id = $1 AND source_id = $2`, [tenant.tenant_id, res.body.id]);
    expect(ledger).toEqual([{ type: 'payment', entry_date: '2026-03-15', credit: 7_777 }]);
  });

  describe('validation', () => {
    it.each([
      ['amount 0', { amount: 0, currency: 'usd' }],
      ['a fractional amount', { amount: 10.5, currency: 'usd' }],
      ['no currency and no customer', { amount: 100 }],
      ['an unknown method', { amount: 100, currency: 'usd', method: 'bitcoin' }],
      ['an unknown auto_match', { amount: 100, currency: 'usd', auto_match: 'always' }],
      ['a bad payment_date', { amount: 100, currency: 'usd', payment_date: '2026-02-30' }],
      ['a remittance line naming both id and number', { amount: 100, currency: 'usd', remittance: [{ invoice_id: 'inv_x', invoice_number: 'INV-1' }] }],
      ['an unknown field', { amount: 100, currency: 'usd', amount_applied: 5 }],
    ])('refuses %s with 400', async (_name, body) => {
      expectProblem(await app.post('/api/v1/payments', body, tenant.token), 400, 'validation_failed');
    });

    it('refuses a currency other than the customer’s (400) and an unknown customer (404)', async () => {
      const c = await r.customer();
      expectProblem(await r.payment({ customer_id: c.id, amount: 100, currency: 'eur' }), 400, 'validation_failed');
      expectProblem(await r.payment({ customer_id: 'cus_01jc9x7m3ef0ab6yr2t0n4q8zd', amount: 100 }), 404, 'not_found');
    });

    it('needs the payments:write scope', async () => {
      const readOnly = await app.createClient(tenant.tenant_id, 'payments:read');
      const res = await app.post('/api/v1/payments', { amount: 100, currency: 'usd' }, readOnly.token);
      expect(res.status).toBe(403);
    });
  });

  describe('Idempotency-Key', () => {
    it('records a retried payment once and replays the first response', async () => {
      const c = await r.customer();
      await r.invoice(c.id, 9_001);
      const body = { customer_id: c.id, amount: 9_001 };
      const first = await r.payment(body, { 'Idempotency-Key': 'pay-retry-1' });
      const again = await r.payment(body, { 'Idempotency-Key': 'pay-retry-1' });
      expect(first.status).toBe(201);
      expect(again.status).toBe(201);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(first.body);
      const [{ count }] = await app.query(`SELECT count(*)::int FROM payments WHERE tenant_id = $1 AND customer_id = $2`, [tenant.tenant_id, c.id]);
      expect(count).toBe(1);
      expectProblem(await r.payment({ ...body, amount: 9_002 }, { 'Idempotency-Key': 'pay-retry-1' }), 422, 'idempotency_key_reused');
    });
  });
});
