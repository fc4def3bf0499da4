import { RECOUNT_FIGURES_SQL, recountReceivableTotalsSql } from '../../../src/modules/customers/infrastructure/customer-figures.sql';
import { FixedClock } from '../../../src/shared/domain/clock';
import { operatorTransaction } from '../../support/operator-sql';
import { expectProblem, TestApp, TestTenant } from '../../support/test-app';
import { Credits } from './support';

const TODAY = '2026-06-30';

/** Credit notes (contract §15): create, apply, void, list and get; the ledger, the figures and the guards. */
describe('credit notes', () => {
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

  describe('POST /credit-notes', () => {
    it('credits an invoice at once, up to its amount due: the invoice, the balance, the ledger and the AR summary follow', async () => {
      const c = await r.customer();
      const invoice = await r.invoice(c.id, 10_000, { issue_date: '2026-06-01' });
      const res = await r.createCreditNote({ customer_id: c.id, invoice_id: invoice.id, amount: 2_500, reason: 'product_unsatisfactory', memo: 'Damaged' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.stringMatching(/^cn_/),
        number: expect.stringMatching(/^CN-\d{6}$/),
        customer_id: c.id,
        invoice_id: invoice.id,
        status: 'applied',
        currency: 'usd',
        amount: 2_500,
        amount_applied: 2_500,
        amount_refunded: 0,
        amount_remaining: 0,
        applications: [{ id: expect.stringMatching(/^cna_/), invoice_id: invoice.id, amount: 2_500, applied_at: `${TODAY}T12:00:00.000Z` }],
        refunds: [],
        reason: 'product_unsatisfactory',
        memo: 'Damaged',
        line_items: [],
        voided_at: null,
        created_at: `${TODAY}T12:00:00.000Z`,
        updated_at: `${TODAY}T12:00:00.000Z`,
      });
      expect(await r.getCreditNote(res.body.id)).toEqual(res.body);
      expect(await r.getInvoice(invoice.id)).toMatchObject({ status: 'partially_paid', amount_paid: 0, amount_credited: 2_500, amount_due: 7_500 });
      expect(await r.getCustomer(c.id)).toMatchObject({ balance: 7_500, ar_summary: { total_credited: 2_500, balance: 7_500 } });
      const { lines, statement } = await r.statementLines(c.id, '2026-06-01', TODAY);
      expect(lines).toEqual([
        ['2026-06-01', 'invoice', invoice.number, 10_000, 0],
        [TODAY, 'credit_note', res.body.number, 0, 2_500],
      ]);
      expect(statement.closing_balance).toBe(7_500);
    });

    it('keeps what the invoice does not take as the customer\'s credit', async () => {
      const c = await r.customer();
      const invoice = await r.invoice(c.id, 3_000);
      await r.payment({ customer_id: c.id, amount: 1_000, auto_match: 'none' }).then((p) =>
        app.post(`/api/v1/payments/${p.body.id}/match`, { applications: [{ invoice_id: invoice.id }] }, t.token),
      );
      const note = await r.creditNote(c.id, { invoice_id: invoice.id, amount: 5_000 });
      expect(note).toMatchObject({ status: 'partially_applied', amount_applied: 2_000, amount_remaining: 3_000 });
      expect(await r.getInvoice(invoice.id)).toMatchObject({ status: 'paid', amount_paid: 1_000, amount_credited: 2_000, amount_due: 0 });
      // balance = open amount due − unapplied payments − the credit left on notes
      expect((await r.getCustomer(c.id)).balance).toBe(-3_000);
    });

    it('takes its amount from line items, computed as an invoice\'s; without an invoice it is all credit', async () => {
      const c = await r.customer();
      const note = await r.creditNote(c.id, {
        reason: 'discount',
        line_items: [
          { description: 'Loyalty', quantity: 2, unit_amount: 1_000, tax_rate: 10 },
          { description: 'Goodwill', quantity: 1.5, unit_amount: 333, discount_amount: 100 },
        ],
      });
      expect(note).toMatchObject({ status: 'open', invoice_id: null, amount: 2_200 + 400, amount_applied: 0, amount_remaining: 2_600, applications: [] });
      expect(note.line_items).toHaveLength(2);
      expect(note.line_items[0]).toMatchObject({ id: expect.any(String), amount: 2_000, tax_amount: 200 });
      expect((await r.getCustomer(c.id)).balance).toBe(-2_600);
    });

    it('applies nothing to a paid invoice: all of it stays credit', async () => {
      const c = await r.customer();
      const invoice = await r.invoice(c.id, 2_000);
      await r.payment({ customer_id: c.id, amount: 2_000, reference: invoice.number });
      const note = await r.creditNote(c.id, { invoice_id: invoice.id, amount: 500 });
      expect(note).toMatchObject({ invoice_id: invoice.id, status: 'open', amount_remaining: 500, applications: [] });
    });

    it('answers errors as problems and creates nothing (the numbers stay gapless)', async () => {
      const c = await r.customer();
      const eur = await r.customer({ currency: 'eur' });
      const draft = await r.invoice(c.id, 1_000, { status: 'draft' });
      const othersInvoice = await r.invoice(eur.id, 1_000);
      const first = await r.creditNote(c.id, { amount: 100 });
      for (const body of [
        { customer_id: c.id },
        { customer_id: c.id, amount: 100, line_items: [{ description: 'x', quantity: 1, unit_amount: 100 }] },
        { customer_id: c.id, amount: 0 },
        { customer_id: c.id, amount: 1.5 },
        { customer_id: c.id, amount: 1e13 },
        { customer_id: c.id, amount: 100, reason: 'because' },
        { customer_id: c.id, amount: 100, currency: 'eur' },
        { customer_id: c.id, amount: 100, currency: 'xyz' },
        { customer_id: c.id, amount: 100, status: 'open' },
        { customer_id: c.id, line_items: [] },
        { customer_id: c.id, line_items: [{ description: 'Nothing', quantity: 1, unit_amount: 0 }] },
      ]) {
        const res = await r.createCreditNote(body);
        expect({ body, status: res.status }).toEqual({ body, status: 400 });
        expectProblem(res, 400, 'validation_failed');
      }
      expectProblem(await r.createCreditNote({ customer_id: 'cus_01jc9x7m3ef0ab6yr2t0n4q8zd', amount: 100 }), 404, 'not_found');
      expectProblem(await r.createCreditNote({ customer_id: c.id, invoice_id: 'inv_01jc9x7m3ef0ab6yr2t0n4q8zd', amount: 100 }), 404, 'not_found');
      expectProblem(await r.createCreditNote({ customer_id: c.id, invoice_id: othersInvoice.id, amount: 100 }), 409, 'conflict');
      expectProblem(await r.createCreditNote({ customer_id: c.id, invoice_id: draft.id, amount: 100 }), 409, 'invalid_state');
      const other = await app.createTenant('Other');
      expectProblem(await app.post('/api/v1/credit-notes', { customer_id: c.id, amount: 100, reason: 'other' }, other.token), 404, 'not_found');
      const readOnly = await app.createClient(t.tenant_id, 'invoices:read customers:read');
      expectProblem(await app.post('/api/v1/credit-notes', { customer_id: c.id, amount: 100, reason: 'other' }, readOnly.token), 403, 'forbidden');

      const next = await r.creditNote(c.id, { amount: 100 });
      expect(Number(next.number.slice(3))).toBe(Number(first.number.slice(3)) + 1);
      expect((await r.getCustomer(c.id)).balance).toBe(-200);
    });

    it('numbers credit notes CN-000001… per tenant, unique and gapless under concurrency', async () => {
      const tenant = await app.createTenant('Numbers');
      const rr = new Credits(app, tenant);
      const c = await rr.customer();
      const results = await Promise.all(Array.from({ length: 12 }, () => rr.createCreditNote({ customer_id: c.id, amount: 100 })));
      expect(results.map((x) => x.status)).toEqual(Array(12).fill(201));
      expect(results.map((x) => x.body.number).sort()).toEqual(Array.from({ length: 12 }, (_, i) => `CN-${String(i + 1).padStart(6, '0')}`));
    });

    it('replays an Idempotency-Key: one credit note, the same answer', async () => {
      const c = await r.customer();
      const body = { customer_id: c.id, amount: 700 };
      const first = await r.createCreditNote(body, { 'Idempotency-Key': 'cn-1' });
      const again = await r.createCreditNote(body, { 'Idempotency-Key': 'cn-1' });
      expect(again.status).toBe(201);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(first.body);
      expect((await r.getCustomer(c.id)).ar_summary.total_credited).toBe(700);
    });
  });

  describe('POST /credit-notes/:id/apply', () => {
    it('applies to several invoices, defaulting each amount, and returns the note and the invoices', async () => {
      const c = await r.customer();
      const a = await r.invoice(c.id, 1_000);
      const b = await r.invoice(c.id, 3_000);
      const note = await r.creditNote(c.id, { amount: 2_500 });
      const res = await r.applyCreditNote(note.id, [{ invoice_id: a.id }, { invoice_id: b.id }]);
      expect(res.status).toBe(200);
      expect(res.body.credit_note).toMatchObject({ id: note.id, status: 'applied', amount_applied: 2_500, amount_remaining: 0 });
      expect(res.body.credit_note.applications.map((x: any) => [x.invoice_id, x.amount])).toEqual([[a.id, 1_000], [b.id, 1_500]]);
      expect(res.body.invoices.map((i: any) => [i.id, i.status, i.amount_credited, i.amount_due])).toEqual([
        [a.id, 'paid', 1_000, 0],
        [b.id, 'partially_paid', 1_500, 1_500],
      ]);
      expect(res.body.credit_note).toEqual(await r.getCreditNote(note.id));
      expect((await r.getCustomer(c.id)).balance).toBe(1_500);
    });

    it('is all or nothing, with the errors of a manual match', async () => {
      const c = await r.customer();
      const other = await r.customer();
      const a = await r.invoice(c.id, 1_000);
      const b = await r.invoice(c.id, 1_000);
      const paid = await r.invoice(c.id, 500);
      await r.payment({ customer_id: c.id, amount: 500, reference: paid.number });
      const foreign = await r.invoice(other.id, 1_000);
      const note = await r.creditNote(c.id, { amount: 1_500 });

      expectProblem(await r.applyCreditNote(note.id, [{ invoice_id: a.id, amount: 1_000 }, { invoice_id: b.id, amount: 600 }]), 409, 'conflict');
      expectProblem(await r.applyCreditNote(note.id, [{ invoice_id: a.id, amount: 1_001 }]), 409, 'conflict');
      expectProblem(await r.applyCreditNote(note.id, [{ invoice_id: foreign.id }]), 409, 'conflict');
      expectProblem(await r.applyCreditNote(note.id, [{ invoice_id: paid.id }]), 409, 'invalid_state');
      expectProblem(await r.applyCreditNote(note.id, [{ invoice_id: 'inv_01jc9x7m3ef0ab6yr2t0n4q8zd' }]), 404, 'not_found');
      expectProblem(await r.applyCreditNote(note.id, [{ invoice_id: 'nope' }]), 404, 'not_found');
      expectProblem(await r.applyCreditNote('cn_01jc9x7m3ef0ab6yr2t0n4q8zd', [{ invoice_id: a.id }]), 404, 'not_found');
      expectProblem(await r.applyCreditNote(note.id, []), 400, 'validation_failed');
      expectProblem(await r.applyCreditNote(note.id, [{ invoice_id: a.id }, { invoice_id: a.id }]), 400, 'validation_failed');
      expectProblem(await r.applyCreditNote(note.id, [{ invoice_id: a.id, amount: -5 }]), 400, 'validation_failed');

      expect(await r.getCreditNote(note.id)).toMatchObject({ status: 'open', amount_applied: 0, applications: [] });
      for (const id of [a.id, b.id]) expect(await r.getInvoice(id)).toMatchObject({ amount_credited: 0, amount_due: 1_000 });
    });
  });

  describe('POST /credit-notes/:id/void', () => {
    it('voids an unused credit note: the credit is taken back with a void ledger debit', async () => {
      const c = await r.customer();
      await r.invoice(c.id, 4_000);
      const note = await r.creditNote(c.id, { amount: 1_000 });
      expect((await r.getCustomer(c.id)).balance).toBe(3_000);
      const res = await app.request('POST', `/api/v1/credit-notes/${note.id}/void`, { token: t.token });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: note.id, status: 'void', voided_at: `${TODAY}T12:00:00.000Z`, amount_remaining: 1_000 });
      expect(await r.getCustomer(c.id)).toMatchObject({ balance: 4_000, ar_summary: { total_credited: 0 } });
      const { lines } = await r.statementLines(c.id, TODAY, TODAY);
      expect(lines.slice(-2)).toEqual([
        [TODAY, 'credit_note', note.number, 0, 1_000],
        [TODAY, 'void', note.number, 1_000, 0],
      ]);
      expectProblem(await r.voidCreditNote(note.id), 409, 'invalid_state');
      const invoice = await r.invoice(c.id, 100);
      expectProblem(await r.applyCreditNote(note.id, [{ invoice_id: invoice.id }]), 409, 'invalid_state');
    });

    it('refuses a credit note something was applied from (409), and an unknown one (404)', async () => {
      const c = await r.customer();
      const invoice = await r.invoice(c.id, 1_000);
      const note = await r.creditNote(c.id, { invoice_id: invoice.id, amount: 100 });
      expectProblem(await r.voidCreditNote(note.id), 409, 'invalid_state');
      expectProblem(await r.voidCreditNote('cn_01jc9x7m3ef0ab6yr2t0n4q8zd'), 404, 'not_found');
      expect(await r.getCreditNote(note.id)).toMatchObject({ status: 'applied', voided_at: null });
    });
  });

  describe('GET /credit-notes', () => {
    let tenant: TestTenant;
    let rr: Credits;
    const ids: Record<string, string> = {};
    beforeAll(async () => {
      tenant = await app.createTenant('Lists');
      rr = new Credits(app, tenant);
      const c1 = await rr.customer();
      const c2 = await rr.customer();
      const inv = await rr.invoice(c1.id, 5_000);
      ids.c1 = c1.id;
      ids.c2 = c2.id;
      ids.inv = inv.id;
      ids.issued = (await rr.creditNote(c1.id, { invoice_id: inv.id, amount: 1_000 })).id;
      ids.applied = (await rr.creditNote(c1.id, { amount: 300 })).id;
      await rr.applyCreditNote(ids.applied, [{ invoice_id: inv.id, amount: 100 }]);
      ids.plain = (await rr.creditNote(c2.id, { amount: 200 })).id;
      ids.voided = (await rr.creditNote(c2.id, { amount: 50 })).id;
      await rr.voidCreditNote(ids.voided);
    });
    const list = async (query: string) => {
      const res = await app.get(`/api/v1/credit-notes${query}`, tenant.token);
      expect(res.status).toBe(200);
      return res.body.data.map((n: any) => n.id);
    };

    it('lists newest first by default and filters by customer, invoice (issued for or applied to) and status', async () => {
      expect(await list('')).toEqual([ids.voided, ids.plain, ids.applied, ids.issued]);
      expect(await list(`?customer_id=${ids.c2}`)).toEqual([ids.voided, ids.plain]);
      expect(await list(`?invoice_id=${ids.inv}`)).toEqual([ids.applied, ids.issued]);
      expect(await list('?status=void,open')).toEqual([ids.voided, ids.plain]);
      expect(await list('?status=partially_applied')).toEqual([ids.applied]);
      expect(await list('?sort=amount')).toEqual([ids.voided, ids.plain, ids.applied, ids.issued]);
      expect(await list('?customer_id=cus_01jc9x7m3ef0ab6yr2t0n4q8zd')).toEqual([]);
    });

    it('pages with signed cursors and a Link header; a cursor for other filters, a forged one or a bad value is a 400', async () => {
      const first = await app.get('/api/v1/credit-notes?limit=3', tenant.token);
      expect(first.body).toMatchObject({ has_more: true, next_cursor: expect.any(String) });
      expect(first.headers.get('link')).toContain('rel="next"');
      const second = await app.get(`/api/v1/credit-notes?limit=3&cursor=${encodeURIComponent(first.body.next_cursor)}`, tenant.token);
      expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
      expect([...first.body.data, ...second.body.data].map((n: any) => n.id)).toEqual([ids.voided, ids.plain, ids.applied, ids.issued]);
      expectProblem(await app.get(`/api/v1/credit-notes?limit=3&status=open&cursor=${encodeURIComponent(first.body.next_cursor)}`, tenant.token), 400, 'validation_failed');
      expectProblem(await app.get(`/api/v1/credit-notes?cursor=${encodeURIComponent(`${first.body.next_cursor}x`)}`, tenant.token), 400, 'validation_failed');
      for (const q of ['?status=used', '?sort=number', '?limit=0', '?limit=101', '?colour=red']) {
        expectProblem(await app.get(`/api/v1/credit-notes${q}`, tenant.token), 400, 'validation_failed');
      }
    });

    it("never shows another tenant's credit notes", async () => {
      expect((await app.get('/api/v1/credit-notes', t.token)).body.data.map((n: any) => n.id)).not.toContain(ids.plain);
      expectProblem(await app.get(`/api/v1/credit-notes/${ids.plain}`, t.token), 404, 'not_found');
      expectProblem(await app.get('/api/v1/credit-notes/not-an-id', tenant.token), 404, 'not_found');
    });
  });

  describe('guards: the database refuses credit figures no row explains', () => {
    let note: { id: string; customer_id: string };
    let invoice: { id: string };
    beforeAll(async () => {
      const c = await r.customer();
      invoice = await r.invoice(c.id, 10_000);
      note = await r.creditNote(c.id, { amount: 3_000 });
    });
    const row = (id: string, amount = 700) =>
      [`INSERT INTO credit_note_applications (tenant_id, id, credit_note_id, invoice_id, amount, applied_at) VALUES ($1, $2, $3, $4, $5, now())`, [t.tenant_id, id, note.id, invoice.id, amount]] as [
        string,
        unknown[],
      ];
    const setNote = (sql: string) => [`UPDATE credit_notes SET ${sql} WHERE tenant_id = $1 AND id = $2`, [t.tenant_id, note.id]] as [string, unknown[]];
    const setInvoice = (sql: string) => [`UPDATE invoices SET ${sql} WHERE tenant_id = $1 AND id = $2`, [t.tenant_id, invoice.id]] as [string, unknown[]];

    it("refuses a credit note's amount_applied or amount_refunded set by hand", async () => {
      expect(await transaction(setNote(`amount_applied = 500, status = 'partially_applied'`))).toMatchObject({ code: '23514', constraint: 'credit_note_figures' });
      expect(await transaction(setNote(`amount_refunded = 500, status = 'partially_applied'`))).toMatchObject({ code: '23514', constraint: 'credit_note_figures' });
      expect(await transaction(setInvoice(`amount_credited = 500, status = 'partially_paid'`))).toMatchObject({ code: '23514', constraint: 'invoice_figures' });
    });

    it('refuses an application whose note or invoice did not move with it, and accepts all three together', async () => {
      expect(await transaction(row('cna_01jc9x7m3ef0ab6yr2t0n4q8zz'), setInvoice(`amount_credited = 700, status = 'partially_paid'`))).toMatchObject({
        constraint: 'credit_note_figures',
      });
      expect(await transaction(row('cna_01jc9x7m3ef0ab6yr2t0n4q8zz'), setNote(`amount_applied = 700, status = 'partially_applied'`))).toMatchObject({
        constraint: 'invoice_figures',
      });
      expect(
        await transaction(row('cna_01jc9x7m3ef0ab6yr2t0n4q8zy'), setNote(`amount_applied = 700, status = 'partially_applied'`), setInvoice(`amount_credited = 700, status = 'partially_paid'`)),
      ).toBeNull();
      expect(await r.getCreditNote(note.id)).toMatchObject({ amount_applied: 700, amount_remaining: 2_300 });
    });

    it('refuses more used than the amount, a status that does not follow, a void note with something used', async () => {
      expect(await transaction(setNote(`amount_applied = 3001`))).toMatchObject({ code: '23514', constraint: 'credit_notes_used_within_amount' });
      expect(await transaction(setNote(`status = 'applied'`))).toMatchObject({ code: '23514', constraint: 'credit_notes_status_follows_amounts' });
      expect(await transaction(setNote(`voided_at = now(), status = 'void'`))).toMatchObject({ code: '23514', constraint: 'credit_notes_void_unused' });
    });

    it('keeps applications as facts, and a credit note in its customer\'s currency', async () => {
      for (const sql of [`UPDATE credit_note_applications SET amount = 1 WHERE tenant_id = $1`, `DELETE FROM credit_note_applications WHERE tenant_id = $1`]) {
        expect(await transaction([sql, [t.tenant_id]])).toMatchObject({ code: '23001' });
      }
      expect(await transaction(setNote(`currency = 'eur'`))).toMatchObject({ code: '23503' });
    });

    it("refuses the customer's total_credited written directly; a recount finds what the triggers kept", async () => {
      expect(
        await transaction([`UPDATE customers SET total_credited = total_credited + 1 WHERE tenant_id = $1 AND id = $2`, [t.tenant_id, note.customer_id]]),
      ).toMatchObject({ code: '23514', constraint: 'customer_figures' });
      const totals = () => app.query(`SELECT id, total_credited::int AS c, total_written_off::int AS w FROM customers WHERE tenant_id = $1 ORDER BY id`, [t.tenant_id]);
      const kept = await totals();
      expect(kept.some((x: any) => x.c > 0)).toBe(true);
      expect(await transaction([RECOUNT_FIGURES_SQL], [recountReceivableTotalsSql('$1'), [t.tenant_id]])).toBeNull();
      expect(await totals()).toEqual(kept);
    });
  });
});
