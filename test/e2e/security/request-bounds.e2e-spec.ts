import { Receivables } from '../payments/support';
import { ApiResponse, expectProblem, TestApp, TestTenant } from '../../support/test-app';

const TOO_MUCH = 1_000_000_000_001; // 10^12 + 1

/** Amounts a client sends are at most 10^12 minor units; arrays have documented limits (docs/security.md). */
describe('request bounds', () => {
  let app: TestApp;
  let t: TestTenant;
  let r: Receivables;
  let customerId: string;
  let invoiceId: string;
  let paymentId: string;

  beforeAll(async () => {
    app = await TestApp.start();
    t = await app.createTenant('Bounds');
    r = new Receivables(app, t);
    customerId = (await r.customer()).id;
    invoiceId = (await r.invoice(customerId, 5000)).id;
    const payment = await app.post('/api/v1/payments', { customer_id: customerId, amount: 100, auto_match: 'none' }, t.token);
    paymentId = payment.body.id;
  });
  afterAll(() => app.close());

  function expectFieldError(res: ApiResponse, field: string): void {
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
  }

  const line = (overrides: Record<string, unknown> = {}) => ({ description: 'Line', quantity: 1, unit_amount: 100, ...overrides });

  describe('every amount a client sends is at most 10^12 minor units', () => {
    it.each<[string, () => Promise<ApiResponse>, string]>([
      ['payment amount', () => app.post('/api/v1/payments', { customer_id: customerId, amount: TOO_MUCH }, t.token), 'amount'],
      ['remittance amount', () => app.post('/api/v1/payments', { customer_id: customerId, amount: 100, remittance: [{ invoice_id: invoiceId, amount: TOO_MUCH }] }, t.token), 'remittance[0].amount'],
      ['match amount', () => app.post(`/api/v1/payments/${paymentId}/match`, { applications: [{ invoice_id: invoiceId, amount: TOO_MUCH }] }, t.token), 'applications[0].amount'],
      ['unit_amount', () => app.post('/api/v1/invoices', { customer_id: customerId, line_items: [line({ unit_amount: TOO_MUCH })] }, t.token), 'line_items[0].unit_amount'],
      ['discount_amount', () => app.post('/api/v1/invoices', { customer_id: customerId, line_items: [line({ discount_amount: TOO_MUCH })] }, t.token), 'line_items[0].discount_amount'],
      ['line edit', () => app.patch(`/api/v1/invoices/${invoiceId}`, { line_items: [line({ unit_amount: TOO_MUCH })] }, t.token), 'line_items[0].unit_amount'],
      ['dispute amount', () => app.patch(`/api/v1/invoices/${invoiceId}`, { dispute: { status: 'open', reason: 'x', amount: TOO_MUCH } }, t.token), 'dispute.amount'],
      ['credit_limit', () => app.post('/api/v1/customers', { name: 'Big', currency: 'usd', credit_limit: TOO_MUCH }, t.token), 'credit_limit'],
      ['credit_limit (patch)', () => app.patch(`/api/v1/customers/${customerId}`, { credit_limit: TOO_MUCH }, t.token), 'credit_limit'],
      ['credit_limit (through an invoice)', () => app.post('/api/v1/invoices', { customer: { name: 'Big', credit_limit: TOO_MUCH }, currency: 'usd', line_items: [line()] }, t.token), 'customer.credit_limit'],
    ])('%s', async (_label, send, field) => {
      expectFieldError(await send(), field);
    });

    it('10^12 itself is accepted', async () => {
      const res = await app.post('/api/v1/payments', { customer_id: customerId, amount: 1_000_000_000_000, auto_match: 'none' }, t.token);
      expect(res.status).toBe(201);
      expect(res.body.amount).toBe(1_000_000_000_000);
    });
  });

  describe('arrays have documented limits', () => {
    it('500 line items are accepted, 501 refused', async () => {
      const ok = await app.post('/api/v1/invoices', { customer_id: customerId, line_items: Array.from({ length: 500 }, () => line()) }, t.token);
      expect(ok.status).toBe(201);
      expect(ok.body.line_items).toHaveLength(500);
      const res = await app.post('/api/v1/invoices', { customer_id: customerId, line_items: Array.from({ length: 501 }, () => line()) }, t.token);
      expectFieldError(res, 'line_items');
      expect(res.body.errors[0].code).toBe('arrayMaxSize');
    });

    it('1,000 remittance lines are accepted, 1,001 refused', async () => {
      const remittance = (n: number) => Array.from({ length: n }, (_, i) => ({ invoice_number: `NOPE-${i}` }));
      const ok = await app.post('/api/v1/payments', { customer_id: customerId, amount: 100, remittance: remittance(1000) }, t.token);
      expect(ok.status).toBe(201);
      expectFieldError(await app.post('/api/v1/payments', { customer_id: customerId, amount: 100, remittance: remittance(1001) }, t.token), 'remittance');
    });

    it('1,001 match applications are refused', async () => {
      const applications = Array.from({ length: 1001 }, () => ({ invoice_id: invoiceId, amount: 1 }));
      expectFieldError(await app.post(`/api/v1/payments/${paymentId}/match`, { applications }, t.token), 'applications');
    });

    it('10,000 line items are refused by the body parser, before any validation', async () => {
      const res = await app.post('/api/v1/invoices', { customer_id: customerId, line_items: Array.from({ length: 10_000 }, () => line()) }, t.token);
      expectFieldError(res, 'line_items');
      expect(res.body.errors[0].code).toBe('max_items');
    });
  });
});
