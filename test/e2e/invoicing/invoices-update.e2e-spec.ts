import { CustomerMother } from '../../support/mothers/customer.mother';
import { InvoiceStateMother } from '../../support/mothers/invoice-state.mother';
import { InvoiceMother } from '../../support/mothers/invoice.mother';
import { expectProblem, TestApp, TestTenant } from '../../support/test-app';

describe('PATCH /invoices/:id', () => {
  let app: TestApp;
  let t: TestTenant;
  let customerId: string;

  beforeAll(async () => {
    app = await TestApp.start();
    t = await app.createTenant();
    customerId = (await app.post('/api/v1/customers', CustomerMother.request(), t.token)).body.id;
  });
  afterAll(() => app.close());

  const create = async (overrides: Record<string, unknown> = {}) => {
    const res = await app.post('/api/v1/invoices', InvoiceMother.request({ customer_id: customerId, ...overrides }), t.token);
    expect(res.status).toBe(201);
    return res.body;
  };
  /** An invoice of total 10000 in any status, reached the way a client (or payments) would. */
  const inStatus = async (status: string) => {
    const invoice = await create({ status: status === 'draft' ? 'draft' : 'open' });
    if (status === 'partially_paid') await InvoiceStateMother.pay(app, t.tenant_id, invoice.id, 4000);
    if (status === 'paid') await InvoiceStateMother.pay(app, t.tenant_id, invoice.id, 10000);
    if (status === 'void' || status === 'uncollectible') expect((await app.patch(`/api/v1/invoices/${invoice.id}`, { status }, t.token)).status).toBe(200);
    const res = await app.get(`/api/v1/invoices/${invoice.id}`, t.token);
    expect(res.body.status).toBe(status);
    return res.body;
  };
  const ledgerOf = (invoiceId: string) =>
    app.query(`SELECT type, debit::int, credit::int FROM ledger_entries WHERE tenant_id = $1 AND source_id = $2 ORDER BY seq`, [t.tenant_id, invoiceId]);
  const eventsOf = async (invoiceId: string) =>
    (await app.query(`SELECT type FROM outbox WHERE tenant_id = $1 AND aggregate_id = $2 ORDER BY seq`, [t.tenant_id, invoiceId])).map((r) => r.type);

  describe('ETag and If-Match', () => {
    it('answers with the version as a strong ETag and refuses a stale If-Match with 412, changing nothing', async () => {
      const invoice = await create();
      const got = await app.get(`/api/v1/invoices/${invoice.id}`, t.token);
      expect(got.headers.get('etag')).toBe('"1"');

      const first = await app.patch(`/api/v1/invoices/${invoice.id}`, { memo: 'first' }, t.token, { 'if-match': '"1"' });
      expect(first.status).toBe(200);
      expect(first.headers.get('etag')).toBe('"2"');
      expect(first.body).toMatchObject({ memo: 'first', version: 2 });

      const stale = await app.patch(`/api/v1/invoices/${invoice.id}`, { memo: 'second', status: 'void' }, t.token, { 'if-match': '"1"' });
      expectProblem(stale, 412, 'precondition_failed');
      const after = await app.get(`/api/v1/invoices/${invoice.id}`, t.token);
      expect(after.body).toMatchObject({ memo: 'first', status: 'open', version: 2 });
      expect(after.headers.get('etag')).toBe('"2"');
      expect(await eventsOf(invoice.id)).toEqual(['invoice.created', 'invoice.finalized', 'invoice.updated']);
    });

    it('compares strongly (a weak tag never matches), accepts * and lists of tags, and needs no If-Match', async () => {
      const invoice = await create();
      expectProblem(await app.patch(`/api/v1/invoices/${invoice.id}`, { memo: 'x' }, t.token, { 'if-match': 'W/"1"' }), 412, 'precondition_failed');
      expect((await app.patch(`/api/v1/invoices/${invoice.id}`, { memo: 'a' }, t.token, { 'if-match': '"7", "1"' })).status).toBe(200);
      expect((await app.patch(`/api/v1/invoices/${invoice.id}`, { memo: 'b' }, t.token, { 'if-match': '*' })).status).toBe(200);
      expect((await app.patch(`/api/v1/invoices/${invoice.id}`, { memo: 'c' }, t.token)).body.version).toBe(4);
    });

    it('serialises concurrent edits: no update is lost', async () => {
      const invoice = await create({ status: 'draft' });
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          app.patch(`/api/v1/invoices/${invoice.id}`, { line_items: [InvoiceMother.line({ description: `v${i}`, unit_amount: 1000 * (i + 1) })] }, t.token),
        ),
      );
      expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
      expect(results.map((r) => r.body.version).sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
      const events = await app.query(`SELECT data FROM outbox WHERE tenant_id = $1 AND aggregate_id = $2 AND type = 'invoice.updated'`, [t.tenant_id, invoice.id]);
      expect(events.map((e) => e.data.object.version).sort((a: number, b: number) => a - b)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    });
  });

  describe('transitions', () => {
    it.each([
      ['draft', 'open', ['invoice.updated', 'invoice.finalized'], [{ type: 'invoice', debit: 10000, credit: 0 }]],
      ['draft', 'void', ['invoice.updated', 'invoice.voided'], []],
      ['open', 'void', ['invoice.updated', 'invoice.voided'], [{ type: 'void', debit: 0, credit: 10000 }]],
      ['open', 'uncollectible', ['invoice.updated', 'invoice.marked_uncollectible'], [{ type: 'write_off', debit: 0, credit: 10000 }]],
      ['partially_paid', 'uncollectible', ['invoice.updated', 'invoice.marked_uncollectible'], [{ type: 'write_off', debit: 0, credit: 6000 }]],
      ['uncollectible', 'open', ['invoice.updated'], [{ type: 'adjustment', debit: 10000, credit: 0 }]],
    ])('%s → %s: 200, its events and its ledger entry', async (from, to, events, entries) => {
      const invoice = await inStatus(from);
      const ledgerBefore = (await ledgerOf(invoice.id)).length;
      const eventsBefore = (await eventsOf(invoice.id)).length;
      const res = await app.patch(`/api/v1/invoices/${invoice.id}`, { status: to }, t.token);
      expect({ status: res.status, invoice: res.body.status }).toEqual({ status: 200, invoice: to });
      expect((await eventsOf(invoice.id)).slice(eventsBefore)).toEqual(events);
      expect((await ledgerOf(invoice.id)).slice(ledgerBefore)).toEqual(entries);
    });

    it.each([
      ['draft', 'partially_paid'],
      ['draft', 'paid'],
      ['draft', 'uncollectible'],
      ['open', 'draft'],
      ['open', 'paid'],
      ['open', 'partially_paid'],
      ['partially_paid', 'void'],
      ['partially_paid', 'open'],
      ['partially_paid', 'paid'],
      ['paid', 'open'],
      ['paid', 'void'],
      ['paid', 'uncollectible'],
      ['void', 'open'],
      ['void', 'draft'],
      ['uncollectible', 'void'],
      ['uncollectible', 'paid'],
    ])('%s → %s: 409 invalid_state, nothing changed', async (from, to) => {
      const invoice = await inStatus(from);
      const ledgerBefore = await ledgerOf(invoice.id);
      const res = await app.patch(`/api/v1/invoices/${invoice.id}`, { status: to }, t.token);
      expectProblem(res, 409, 'invalid_state');
      expect((await app.get(`/api/v1/invoices/${invoice.id}`, t.token)).body).toMatchObject({ status: from, version: invoice.version });
      expect(await ledgerOf(invoice.id)).toEqual(ledgerBefore);
    });

    it('answers an unknown status value with 400', async () => {
      const invoice = await create();
      const res = await app.patch(`/api/v1/invoices/${invoice.id}`, { status: 'closed' }, t.token);
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors[0].field).toBe('status');
    });
  });

  describe('field rules', () => {
    it.each([
      ['open', { number: 'X-1' }],
      ['open', { issue_date: '2026-01-01' }],
      ['open', { customer_id: 'cus_01jc9x7m3ef0ab6yr2t0n4q8zd' }],
      ['partially_paid', { currency: 'usd' }],
      ['paid', { due_date: '2099-01-01' }],
      ['paid', { line_items: [{ description: 'x', quantity: 1, unit_amount: 1 }] }],
      ['paid', { dispute: { status: 'open', reason: 'late' } }],
      ['void', { po_number: 'PO' }],
      ['uncollectible', { due_date: '2099-01-01' }],
    ])('%s invoice: %p is 409 invalid_state', async (status, patch) => {
      const invoice = await inStatus(status);
      expectProblem(await app.patch(`/api/v1/invoices/${invoice.id}`, patch, t.token), 409, 'invalid_state');
      expect((await app.get(`/api/v1/invoices/${invoice.id}`, t.token)).body.version).toBe(invoice.version);
    });

    it.each([
      ['paid', { memo: 'thanks', metadata: { k: 'v' } }],
      ['void', { memo: 'duplicate' }],
      ['open', { due_date: '2099-12-31', po_number: 'PO-9', memo: 'm', metadata: { a: 1 } }],
      ['draft', { number: 'DRAFT-9', issue_date: '2026-01-01', due_date: '2026-01-31', currency: 'USD' }],
    ])('%s invoice: %p is allowed', async (status, patch) => {
      const invoice = await inStatus(status);
      const res = await app.patch(`/api/v1/invoices/${invoice.id}`, patch, t.token);
      expect(res.status).toBe(200);
      expect(res.body.version).toBe(invoice.version + 1);
    });

    it.each([['amount_paid', 0], ['total', 1], ['subtotal', 1], ['amount_due', 1], ['tax_total', 0], ['version', 9], ['id', 'inv_x'], ['customer', {}]])(
      'read-only %s is a 400 and changes nothing',
      async (field, value) => {
        const invoice = await create();
        const res = await app.patch(`/api/v1/invoices/${invoice.id}`, { memo: 'changed', [field]: value }, t.token);
        expectProblem(res, 400, 'validation_failed');
        expect(res.body.errors).toContainEqual(expect.objectContaining({ field, code: 'readOnly' }));
        expect((await app.get(`/api/v1/invoices/${invoice.id}`, t.token)).body).toMatchObject({ memo: null, version: 1 });
      },
    );

    it('moves a draft to another customer of the same currency', async () => {
      const invoice = await create({ status: 'draft' });
      const other = (await app.post('/api/v1/customers', CustomerMother.request({ name: 'Other' }), t.token)).body;
      const res = await app.patch(`/api/v1/invoices/${invoice.id}`, { customer_id: other.id }, t.token);
      expect(res.body).toMatchObject({ customer_id: other.id, customer: { id: other.id, name: 'Other' } });
      const eur = (await app.post('/api/v1/customers', CustomerMother.request({ currency: 'eur' }), t.token)).body;
      expectProblem(await app.patch(`/api/v1/invoices/${invoice.id}`, { customer_id: eur.id, currency: 'usd' }, t.token), 400, 'validation_failed');
      expectProblem(await app.patch(`/api/v1/invoices/${invoice.id}`, { customer_id: 'cus_01jc9x7m3ef0ab6yr2t0n4q8zd' }, t.token), 404, 'not_found');
    });
  });

  describe('line edits of an open invoice', () => {
    it('post an adjustment of the change and move the customer balance', async () => {
      const customer = (await app.post('/api/v1/customers', CustomerMother.request(), t.token)).body;
      const invoice = (await app.post('/api/v1/invoices', InvoiceMother.request({ customer_id: customer.id }), t.token)).body;
      const up = await app.patch(`/api/v1/invoices/${invoice.id}`, { line_items: [InvoiceMother.line({ quantity: 1.5 })] }, t.token);
      expect(up.body).toMatchObject({ total: 15000, amount_due: 15000, status: 'open' });
      await app.patch(`/api/v1/invoices/${invoice.id}`, { line_items: [InvoiceMother.line({ unit_amount: 8000 })] }, t.token);
      expect(await ledgerOf(invoice.id)).toEqual([
        { type: 'invoice', debit: 10000, credit: 0 },
        { type: 'adjustment', debit: 5000, credit: 0 },
        { type: 'adjustment', debit: 0, credit: 7000 },
      ]);
      expect((await app.get(`/api/v1/customers/${customer.id}`, t.token)).body.balance).toBe(8000);
    });

    it('refuses a new total below amount_paid (409)', async () => {
      const invoice = await inStatus('partially_paid');
      expectProblem(await app.patch(`/api/v1/invoices/${invoice.id}`, { line_items: [InvoiceMother.line({ unit_amount: 3999 })] }, t.token), 409, 'invalid_state');
      const res = await app.patch(`/api/v1/invoices/${invoice.id}`, { line_items: [InvoiceMother.line({ unit_amount: 4000 })] }, t.token);
      expect(res.body).toMatchObject({ status: 'paid', amount_due: 0 });
      expect((await eventsOf(invoice.id)).slice(-2)).toEqual(['invoice.updated', 'invoice.paid']);
    });
  });

  describe('disputes', () => {
    it('open with a reason, refuse a second, resolve; events and the disputed filter follow', async () => {
      const invoice = await create();
      expectProblem(await app.patch(`/api/v1/invoices/${invoice.id}`, { dispute: { status: 'open' } }, t.token), 400, 'validation_failed');
      expectProblem(await app.patch(`/api/v1/invoices/${invoice.id}`, { dispute: { status: 'maybe', reason: 'x' } }, t.token), 400, 'validation_failed');
      expectProblem(await app.patch(`/api/v1/invoices/${invoice.id}`, { dispute: { status: 'resolved' } }, t.token), 409, 'invalid_state');

      const opened = await app.patch(`/api/v1/invoices/${invoice.id}`, { dispute: { status: 'open', reason: 'Damaged', amount: 2500 } }, t.token);
      expect(opened.body.dispute).toEqual({ status: 'open', reason: 'Damaged', amount: 2500, opened_at: expect.any(String), resolved_at: null });
      expectProblem(await app.patch(`/api/v1/invoices/${invoice.id}`, { dispute: { status: 'open', reason: 'Again' } }, t.token), 409, 'invalid_state');
      const disputed = await app.get(`/api/v1/invoices?disputed=true&customer_id=${customerId}&limit=100`, t.token);
      expect(disputed.body.data.map((i: { id: string }) => i.id)).toContain(invoice.id);

      const resolved = await app.patch(`/api/v1/invoices/${invoice.id}`, { dispute: { status: 'resolved' } }, t.token);
      expect(resolved.body.dispute).toMatchObject({ status: 'resolved', reason: 'Damaged', resolved_at: expect.any(String) });
      const notDisputed = await app.get(`/api/v1/invoices?disputed=true&customer_id=${customerId}&limit=100`, t.token);
      expect(notDisputed.body.data.map((i: { id: string }) => i.id)).not.toContain(invoice.id);
      expect((await eventsOf(invoice.id)).filter((e) => e.startsWith('dispute.'))).toEqual(['dispute.opened', 'dispute.resolved']);
    });
  });

  describe('events', () => {
    it('record previous_attributes of the changed fields on invoice.updated', async () => {
      const invoice = await create({ status: 'draft', memo: 'old' });
      await app.patch(`/api/v1/invoices/${invoice.id}`, { memo: 'new', status: 'open' }, t.token);
      const [updated] = await app.query(`SELECT data FROM outbox WHERE tenant_id = $1 AND aggregate_id = $2 AND type = 'invoice.updated'`, [t.tenant_id, invoice.id]);
      expect(updated.data.previous_attributes).toEqual({ memo: 'old', status: 'draft' });
      expect(updated.data.object).toMatchObject({ id: invoice.id, memo: 'new', status: 'open', version: 2 });
    });

    it('records nothing for a PATCH that changes nothing', async () => {
      const invoice = await create({ memo: 'same' });
      const res = await app.patch(`/api/v1/invoices/${invoice.id}`, { memo: 'same', status: 'open' }, t.token);
      expect(res.body.version).toBe(1);
      expect(await eventsOf(invoice.id)).toEqual(['invoice.created', 'invoice.finalized']);
    });
  });

  describe('tenant isolation', () => {
    it("answers 404 for another tenant's invoice on GET and PATCH, and changes nothing", async () => {
      const invoice = await create();
      const intruder = await app.createTenant('Intruder');
      expectProblem(await app.get(`/api/v1/invoices/${invoice.id}`, intruder.token), 404, 'not_found');
      expectProblem(await app.patch(`/api/v1/invoices/${invoice.id}`, { status: 'void' }, intruder.token), 404, 'not_found');
      expectProblem(await app.patch(`/api/v1/invoices/${invoice.id}`, { memo: 'x' }, intruder.token, { 'if-match': '"1"' }), 404, 'not_found');
      expect((await app.get(`/api/v1/invoices/${invoice.id}`, t.token)).body).toMatchObject({ status: 'open', version: 1 });
      expect((await app.get('/api/v1/invoices?limit=100', intruder.token)).body).toEqual({ data: [], has_more: false, next_cursor: null });
    });

    it('answers 404 for malformed and unknown ids', async () => {
      for (const id of ['inv_nope', 'inv_01jc9x7m3ef0ab6yr2t0n4q8zd', 'cus_01jc9x7m3ef0ab6yr2t0n4q8zd']) {
        expectProblem(await app.get(`/api/v1/invoices/${id}`, t.token), 404, 'not_found');
        expectProblem(await app.patch(`/api/v1/invoices/${id}`, { memo: 'x' }, t.token), 404, 'not_found');
      }
    });
  });
});
