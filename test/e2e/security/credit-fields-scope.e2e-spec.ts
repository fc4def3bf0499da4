import { expectProblem, TestApp, TestTenant } from '../../support/test-app';

/** invoices:write may create a customer through POST /invoices, but not grant it credit (issue 12, finding 6). */
describe('POST /invoices creating a customer: credit fields need customers:write', () => {
  let app: TestApp;
  let owner: TestTenant;
  let invoicer: TestTenant;

  beforeAll(async () => {
    app = await TestApp.start();
    owner = await app.createTenant('Credit');
    invoicer = await app.createClient(owner.tenant_id, 'invoices:write invoices:read');
  });
  afterAll(() => app.close());

  const line = [{ description: 'Work', quantity: 1, unit_amount: 1000 }];
  const customers = async () => Number((await app.query('SELECT count(*)::int AS n FROM customers WHERE tenant_id = $1', [owner.tenant_id]))[0].n);

  it.each([
    ['credit_limit', { credit_limit: 5_000_000 }],
    ['credit_hold', { credit_hold: false }],
    ['payment_terms_days', { payment_terms_days: 365 }],
  ])('%s without customers:write is a 403 and creates nothing', async (_field, credit) => {
    const before = await customers();
    const res = await app.post('/api/v1/invoices', { customer: { name: 'Self-granted', email: `x${Math.random()}@x.test`, ...credit }, currency: 'usd', line_items: line }, invoicer.token);
    expectProblem(res, 403, 'forbidden');
    expect(res.body.detail).toContain('customers:write');
    expect(res.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    expect(await customers()).toBe(before);
  });

  it('identity fields alone are enough with invoices:write', async () => {
    const res = await app.post(
      '/api/v1/invoices',
      { customer: { name: 'Identity Only', email: 'id@only.test', external_id: 'crm-9', phone: '+1 555', billing_address: { city: 'Springfield' } }, currency: 'usd', line_items: line },
      invoicer.token,
    );
    expect(res.status).toBe(201);
    const customer = await app.get(`/api/v1/customers/${res.body.customer_id}`, owner.token);
    expect(customer.body).toMatchObject({ name: 'Identity Only', credit_limit: null, credit_hold: false, payment_terms_days: 30 });
  });

  it('a client with customers:write may set them', async () => {
    const res = await app.post('/api/v1/invoices', { customer: { name: 'Granted', credit_limit: 100_000, payment_terms_days: 45 }, currency: 'usd', line_items: line }, owner.token);
    expect(res.status).toBe(201);
    const customer = await app.get(`/api/v1/customers/${res.body.customer_id}`, owner.token);
    expect(customer.body).toMatchObject({ credit_limit: 100_000, payment_terms_days: 45 });
  });
});
