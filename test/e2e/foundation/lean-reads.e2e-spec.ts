import { LeanReadRegistry } from '../../../src/shared/http/lean-reads';
import { forgeJwt } from '../../support/jwt';
import { CustomerMother } from '../../support/mothers/customer.mother';
import { InvoiceMother } from '../../support/mothers/invoice.mother';
import { expectProblem, TestApp, TestTenant } from '../../support/test-app';

/**
 * The hot GET routes are answered from a Fastify hook (src/shared/http/lean-reads.ts), not by
 * Nest's router: they must authenticate, count, check scopes, validate and fail exactly as the
 * routes behind the global guards do.
 */
describe('lean read path', () => {
  let app: TestApp;
  let t: TestTenant;
  let customerId: string;
  let invoiceId: string;
  const routes = () => [`/api/v1/invoices/${invoiceId}`, '/api/v1/invoices', `/api/v1/customers/${customerId}`, `/api/v1/customers/${customerId}/statement`];

  beforeAll(async () => {
    app = await TestApp.start();
    t = await app.createTenant('Lean');
    customerId = (await app.post('/api/v1/customers', CustomerMother.request(), t.token)).body.id;
    const invoice = await app.post('/api/v1/invoices', InvoiceMother.request({ customer_id: customerId }), t.token);
    invoiceId = invoice.body.id;
  });
  afterAll(() => app?.close());

  it('serves the hot reads (and only those)', () => {
    const registry = app.app.get(LeanReadRegistry);
    for (const path of ['/invoices/:id', '/invoices', '/customers/:id', '/customers/:id/statement']) expect(registry.find(path)).toBeDefined();
    expect(registry.find('/payments/:id')).toBeUndefined();
  });

  it('answers with the same headers as any route: request id, ETag, rate limit, security headers', async () => {
    const res = await app.get(`/api/v1/invoices/${invoiceId}`, t.token, { 'x-request-id': 'lean-1' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: invoiceId, customer_id: customerId, payments: [] });
    expect(res.headers.get('x-request-id')).toBe('lean-1');
    expect(res.headers.get('etag')).toBe(`"${res.body.version}"`);
    expect(res.headers.get('ratelimit-limit')).toBe('1000');
    expect(res.headers.get('ratelimit-remaining')).toMatch(/^\d+$/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-type')).toContain('application/json');
  });

  it('refuses a missing, forged or insufficient token like the guards', async () => {
    for (const path of routes()) {
      const none = await app.get(path);
      expectProblem(none, 401, 'unauthorized');
      expect(none.headers.get('www-authenticate')).toBe('Bearer realm="receivables"');
      const forged = await app.get(path, forgeJwt({ alg: 'HS256', typ: 'JWT' }, { sub: t.client_id, tid: t.tenant_id, scope: 'invoices:read customers:read', exp: 4_102_444_800 }, 'wrong'));
      expectProblem(forged, 401, 'unauthorized');
      expect(forged.headers.get('www-authenticate')).toContain('error="invalid_token"');
    }
    const payments = await app.createClient(t.tenant_id, 'payments:read');
    for (const path of routes()) {
      const res = await app.get(path, payments.token);
      expectProblem(res, 403, 'forbidden');
      expect(res.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    }
  });

  it('validates queries and maps not found like the controllers', async () => {
    expectProblem(await app.get('/api/v1/invoices?limit=0', t.token), 400, 'validation_failed');
    expectProblem(await app.get('/api/v1/invoices?colour=red', t.token), 400, 'validation_failed');
    expectProblem(await app.get(`/api/v1/customers/${customerId}/statement?from=2026-02-01&to=2026-01-01`, t.token), 400, 'validation_failed');
    expectProblem(await app.get('/api/v1/invoices/inv_01jc9x7m3ef0ab6yr2t0n4q8zd', t.token), 404, 'not_found');
    expectProblem(await app.get('/api/v1/customers/nope', t.token), 404, 'not_found');
    const csv = await app.get(`/api/v1/customers/${customerId}/statement`, t.token, { accept: 'text/csv' });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toContain('text/csv');
  });

  it('counts its requests against the same limit and answers 429 over it', async () => {
    const client = await app.createClient(t.tenant_id, undefined, 6);
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await app.get(`/api/v1/invoices/${invoiceId}`, client.token)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429]);
    const refused = await app.get('/api/v1/invoices', client.token);
    expectProblem(refused, 429, 'rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
