import { RECOUNT_FIGURES_SQL, recountReceivableTotalsSql } from '../../../src/modules/customers/infrastructure/customer-figures.sql';
import { FixedClock } from '../../../src/shared/domain/clock';
import { operatorTransaction } from '../../support/operator-sql';
import { expectProblem, TestApp, TestTenant } from '../../support/test-app';
import { Credits } from './support';

const TODAY = '2026-06-30';

/** Refunds of a payment's unapplied amount and of a credit note's remaining credit (contract §15). */
describe('refunds', () => {
  const clock = new FixedClock(new Date(`${TODAY}T12:00:00Z`));
  let app: TestApp;
  let t: TestTenant;
  let r: Credits;

  beforeAll(async () => {
    app = await TestApp.start({ clock, env: { WORKERS_ENABLED: 'false' } });
    t = await app.createTenant();
    r = new Credits(app, t);
  });
  afterAll(() => app.close());

  const transaction = (...statements: [string, unknown[]?][]) => operatorTransaction(app.databaseUrl, ...statements);
  const refundPayment = (id: string, body: unknown, token = t.token, headers?: Record<string, string>) => app.post(`/api/v1/payments/${id}/refunds`, body, token, headers);
  const refundNote = (id: string, body: unknown, token = t.token) => app.post(`/api/v1/credit-notes/${id}/refunds`, body, token);
  const unapplied = (c: { id: string }, body: Record<string, unknown>) => r.payment({ customer_id: c.id, auto_match: 'none', ...body }).then((x) => x.body);

  describe('POST /payments/:id/refunds', () => {
    it('refunds part of what is unapplied: 201 with the refund; the payment, balance, ledger and AR summary follow', async () => {
      const c = await r.customer();
      await r.invoice(c.id, 5_000, { issue_date: '2026-06-01' });
      const payment = await unapplied(c, { amount: 10_000, reference: 'WIRE 77', payment_date: '2026-06-10' });

      const res = await refundPayment(payment.id, { amount: 3_000, reason: 'Paid twice' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ id: expect.stringMatching(/^ref_/), amount: 3_000, reason: 'Paid twice', created_at: `${TODAY}T12:00:00.000Z` });
      expect(await r.getPayment(payment.id)).toMatchObject({
        status: 'partially_applied',
        amount_applied: 0,
        amount_refunded: 3_000,
        amount_unapplied: 7_000,
        refunds: [res.body],
        match: { status: 'unmatched' },
      });
      expect(await r.getCustomer(c.id)).toMatchObject({ balance: -2_000, ar_summary: { total_refunded: 3_000, unapplied_payments: 7_000, total_paid: 10_000 } });
      const { lines, statement } = await r.statementLines(c.id, '2026-06-01', TODAY);
      expect(lines).toEqual([
        ['2026-06-01', 'invoice', expect.any(String), 5_000, 0],
        ['2026-06-10', 'payment', 'WIRE 77', 0, 10_000],
        [TODAY, 'refund', res.body.id, 3_000, 0],
      ]);
      expect(statement.closing_balance).toBe(-2_000);
    });

    it('never refunds more than is unapplied (409); what is applied stays; the rest refunded leaves nothing', async () => {
      const c = await r.customer();
      const invoice = await r.invoice(c.id, 6_000);
      const payment = await unapplied(c, { amount: 10_000 });
      await app.post(`/api/v1/payments/${payment.id}/match`, { applications: [{ invoice_id: invoice.id }] }, t.token);
      expectProblem(await refundPayment(payment.id, { amount: 4_001 }), 409, 'conflict');
      expect((await refundPayment(payment.id, { amount: 4_000 })).status).toBe(201);
      expect(await r.getPayment(payment.id)).toMatchObject({ status: 'applied', amount_applied: 6_000, amount_refunded: 4_000, amount_unapplied: 0, match: { status: 'matched' } });
      expectProblem(await refundPayment(payment.id, { amount: 1 }), 409, 'conflict');
      // Nothing left: a manual match finds nothing to apply either.
      const other = await r.invoice(c.id, 100);
      expectProblem(await app.post(`/api/v1/payments/${payment.id}/match`, { applications: [{ invoice_id: other.id, amount: 1 }] }, t.token), 409, 'conflict');
    });

    it('answers errors as problems and changes nothing', async () => {
      const c = await r.customer();
      const payment = await unapplied(c, { amount: 1_000 });
      for (const body of [{}, { amount: 0 }, { amount: -1 }, { amount: 1.5 }, { amount: '5' }, { amount: 1e13 }, { amount: 5, reason: 'x'.repeat(501) }, { amount: 5, note: 'x' }]) {
        expectProblem(await refundPayment(payment.id, body), 400, 'validation_failed');
      }
      expectProblem(await refundPayment('pay_01jc9x7m3ef0ab6yr2t0n4q8zd', { amount: 5 }), 404, 'not_found');
      expectProblem(await refundPayment('nope', { amount: 5 }), 404, 'not_found');
      expectProblem(await refundPayment(payment.id, { amount: 5 }, (await app.createTenant('Other')).token), 404, 'not_found');
      expectProblem(await refundPayment(payment.id, { amount: 5 }, (await app.createClient(t.tenant_id, 'payments:read')).token), 403, 'forbidden');
      const unidentified = (await r.payment({ amount: 500, currency: 'usd', auto_match: 'none' })).body;
      expectProblem(await refundPayment(unidentified.id, { amount: 5 }), 409, 'invalid_state');
      expect(await r.getPayment(payment.id)).toMatchObject({ amount_refunded: 0, amount_unapplied: 1_000, refunds: [] });
    });

    it('replays an Idempotency-Key: one refund, the same answer', async () => {
      const c = await r.customer();
      const payment = await unapplied(c, { amount: 1_000 });
      const first = await refundPayment(payment.id, { amount: 100 }, t.token, { 'Idempotency-Key': 'ref-1' });
      const again = await refundPayment(payment.id, { amount: 100 }, t.token, { 'Idempotency-Key': 'ref-1' });
      expect(again.status).toBe(201);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(first.body);
      expect((await r.getPayment(payment.id)).amount_refunded).toBe(100);
    });
  });

  describe('POST /credit-notes/:id/refunds', () => {
    it('refunds the remaining credit, never more (409); a void note, or one refunded, cannot be voided or refunded', async () => {
      const c = await r.customer();
      const invoice = await r.invoice(c.id, 500);
      const note = await r.creditNote(c.id, { invoice_id: invoice.id, amount: 2_000 });
      expect(note).toMatchObject({ amount_applied: 500, amount_remaining: 1_500 });
      expectProblem(await refundNote(note.id, { amount: 1_501 }), 409, 'conflict');
      const res = await refundNote(note.id, { amount: 1_500, reason: 'Returned goods' });
      expect(res.status).toBe(201);
      expect(await r.getCreditNote(note.id)).toMatchObject({ status: 'applied', amount_refunded: 1_500, amount_remaining: 0, refunds: [res.body] });
      expect(await r.getCustomer(c.id)).toMatchObject({ balance: 0, ar_summary: { total_refunded: 1_500, total_credited: 2_000 } });
      const { lines } = await r.statementLines(c.id, TODAY, TODAY);
      expect(lines.at(-1)).toEqual([TODAY, 'refund', res.body.id, 1_500, 0]);

      const refunded = await r.creditNote(c.id, { amount: 300 });
      expect((await refundNote(refunded.id, { amount: 100 })).status).toBe(201);
      expectProblem(await r.voidCreditNote(refunded.id), 409, 'invalid_state');
      const voided = await r.creditNote(c.id, { amount: 300 });
      await r.voidCreditNote(voided.id);
      expectProblem(await refundNote(voided.id, { amount: 100 }), 409, 'invalid_state');
      expectProblem(await refundNote('cn_01jc9x7m3ef0ab6yr2t0n4q8zd', { amount: 100 }), 404, 'not_found');
      expectProblem(await refundNote(refunded.id, { amount: 0 }), 400, 'validation_failed');
    });
  });

  describe('under concurrency: refunds racing applications', () => {
    it('a payment: refunds and manual matches in parallel never use more than it has', async () => {
      const c = await r.customer();
      const invoices = [];
      for (let i = 0; i < 6; i++) invoices.push(await r.invoice(c.id, 1_000));
      const payment = await unapplied(c, { amount: 5_000 });
      const results = await Promise.all([
        ...invoices.map((i) => app.post(`/api/v1/payments/${payment.id}/match`, { applications: [{ invoice_id: i.id, amount: 1_000 }] }, t.token)),
        ...invoices.map(() => refundPayment(payment.id, { amount: 1_000 })),
      ]);
      const statuses = results.map((x) => x.status);
      expect(statuses.filter((s) => s >= 500)).toEqual([]);
      expect(statuses.filter((s) => s === 200 || s === 201)).toHaveLength(5);
      const after = await r.getPayment(payment.id);
      expect(after).toMatchObject({ status: 'applied', amount_unapplied: 0 });
      expect(after.amount_applied + after.amount_refunded).toBe(5_000);
      expect(after.refunds.reduce((s: number, x: any) => s + x.amount, 0)).toBe(after.amount_refunded);
      expect((await r.getCustomer(c.id)).balance).toBe(6_000 - after.amount_applied);
    });

    it('a credit note: refunds and applications in parallel never use more than it has', async () => {
      const c = await r.customer();
      const invoices = [];
      for (let i = 0; i < 6; i++) invoices.push(await r.invoice(c.id, 1_000));
      const note = await r.creditNote(c.id, { amount: 5_000 });
      const results = await Promise.all([
        ...invoices.map((i) => r.applyCreditNote(note.id, [{ invoice_id: i.id, amount: 1_000 }])),
        ...invoices.map(() => refundNote(note.id, { amount: 1_000 })),
      ]);
      const statuses = results.map((x) => x.status);
      expect(statuses.filter((s) => s >= 500)).toEqual([]);
      expect(statuses.filter((s) => s === 200 || s === 201)).toHaveLength(5);
      const after = await r.getCreditNote(note.id);
      expect(after).toMatchObject({ status: 'applied', amount_remaining: 0 });
      expect(after.amount_applied + after.amount_refunded).toBe(5_000);
      expect((await r.getCustomer(c.id)).balance).toBe(6_000 - after.amount_applied);
    });
  });

  describe('guards: the database refuses refund figures no row explains', () => {
    let payment: { id: string; customer_id: string };
    let note: { id: string };
    beforeAll(async () => {
      const c = await r.customer();
      payment = await unapplied(c, { amount: 4_000 });
      note = await r.creditNote(c.id, { amount: 4_000 });
    });
    const refundRow = (id: string, owner: 'payment_id' | 'credit_note_id', ownerId: string) =>
      [
        `INSERT INTO refunds (tenant_id, id, ${owner}, customer_id, currency, amount, created_at) VALUES ($1, $2, $3, $4, 'usd', 250, now())`,
        [t.tenant_id, id, ownerId, payment.customer_id],
      ] as [string, unknown[]];
    const set = (table: string, id: string, sql: string) => [`UPDATE ${table} SET ${sql} WHERE tenant_id = $1 AND id = $2`, [t.tenant_id, id]] as [string, unknown[]];

    it('refuses amount_refunded set by hand on a payment or a credit note', async () => {
      expect(await transaction(set('payments', payment.id, `amount_refunded = 250, status = 'partially_applied'`))).toMatchObject({ code: '23514', constraint: 'payment_figures' });
      expect(await transaction(set('credit_notes', note.id, `amount_refunded = 250, status = 'partially_applied'`))).toMatchObject({ code: '23514', constraint: 'credit_note_figures' });
    });

    it('refuses a refund row its owner did not move with, and accepts both together', async () => {
      expect(await transaction(refundRow('ref_01jc9x7m3ef0ab6yr2t0n4q8zz', 'payment_id', payment.id))).toMatchObject({ constraint: 'payment_figures' });
      expect(await transaction(refundRow('ref_01jc9x7m3ef0ab6yr2t0n4q8zz', 'credit_note_id', note.id))).toMatchObject({ constraint: 'credit_note_figures' });
      expect(
        await transaction(refundRow('ref_01jc9x7m3ef0ab6yr2t0n4q8zy', 'payment_id', payment.id), set('payments', payment.id, `amount_refunded = 250, status = 'partially_applied'`)),
      ).toBeNull();
      expect(await r.getPayment(payment.id)).toMatchObject({ amount_refunded: 250, amount_unapplied: 3_750 });
    });

    it('refuses a refund of two owners or none, more used than the amount, and changes to refunds', async () => {
      expect(
        await transaction([
          `INSERT INTO refunds (tenant_id, id, payment_id, credit_note_id, customer_id, currency, amount, created_at) VALUES ($1, 'ref_01jc9x7m3ef0ab6yr2t0n4q8zx', $2, $3, $4, 'usd', 1, now())`,
          [t.tenant_id, payment.id, note.id, payment.customer_id],
        ]),
      ).toMatchObject({ code: '23514', constraint: 'refunds_one_owner' });
      expect(await transaction(set('payments', payment.id, `amount_refunded = 4001`))).toMatchObject({ code: '23514', constraint: 'payments_used_within_amount' });
      for (const sql of [`UPDATE refunds SET amount = 1 WHERE tenant_id = $1`, `DELETE FROM refunds WHERE tenant_id = $1`]) {
        expect(await transaction([sql, [t.tenant_id]])).toMatchObject({ code: '23001' });
      }
    });

    it("refuses the customer's total_refunded written directly; a recount finds what the triggers kept", async () => {
      expect(await transaction(set('customers', payment.customer_id, 'total_refunded = total_refunded + 1'))).toMatchObject({ code: '23514', constraint: 'customer_figures' });
      const totals = () => app.query(`SELECT id, total_refunded::int AS f, total_credited::int AS c, total_written_off::int AS w FROM customers WHERE tenant_id = $1 ORDER BY id`, [t.tenant_id]);
      const kept = await totals();
      expect(kept.some((x: any) => x.f > 0)).toBe(true);
      expect(await transaction([RECOUNT_FIGURES_SQL], [recountReceivableTotalsSql('$1'), [t.tenant_id]])).toBeNull();
      expect(await totals()).toEqual(kept);
    });
  });
});
