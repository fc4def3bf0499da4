import { TestApp, TestTenant } from '../../support/test-app';

/**
 * Contract §1: nothing of another tenant is ever visible, countable or modifiable. Every
 * resource of one tenant is probed with another tenant's token: 404 like an unknown id, never
 * in lists, and unusable as a reference.
 */
interface Resource {
  name: string;
  path: string;
  create(t: TestTenant, refs: Record<string, string>): Promise<string>;
  /** more routes under /:id that must 404 for another tenant (GET unless a method is given) */
  subPaths?: { method?: string; suffix: string; body?: () => unknown }[];
}

describe('tenant isolation', () => {
  let app: TestApp;
  let acme: TestTenant;
  let globex: TestTenant;
  const ids: Record<string, string> = {};

  const expectCreated = (res: { status: number; text: string; body: any }) => {
    expect(res.status === 201 || res.status === 200 ? 'created' : `${res.status} ${res.text}`).toBe('created');
    return res.body.id as string;
  };

  const RESOURCES: Resource[] = [
    {
      name: 'customer',
      path: '/api/v1/customers',
      create: async (t) => expectCreated(await app.post('/api/v1/customers', { name: 'Acme Buyer', currency: 'usd', external_id: 'CRM-1' }, t.token)),
      subPaths: [{ suffix: '/statement' }, { method: 'PATCH', suffix: '', body: () => ({ name: 'Hijacked' }) }],
    },
    {
      name: 'invoice',
      path: '/api/v1/invoices',
      create: async (t, refs) =>
        expectCreated(
          await app.post('/api/v1/invoices', { customer_id: refs.customer, line_items: [{ description: 'Work', quantity: 2, unit_amount: 5000 }] }, t.token),
        ),
      subPaths: [{ method: 'PATCH', suffix: '', body: () => ({ memo: 'Hijacked' }) }],
    },
    {
      name: 'payment',
      path: '/api/v1/payments',
      create: async (t, refs) => expectCreated(await app.post('/api/v1/payments', { customer_id: refs.customer, amount: 2500, auto_match: 'none' }, t.token)),
      subPaths: [{ method: 'POST', suffix: '/match', body: () => ({ applications: [{ invoice_id: ids.invoice, amount: 100 }] }) }],
    },
    {
      name: 'webhook',
      path: '/api/v1/webhooks',
      create: async (t) => expectCreated(await app.post('/api/v1/webhooks', { url: 'https://127.0.0.1/hooks', events: ['*'] }, t.token)),
      subPaths: [{ suffix: '/deliveries' }, { method: 'DELETE', suffix: '' }, { method: 'POST', suffix: '/rotate-secret', body: () => ({}) }],
    },
  ];

  beforeAll(async () => {
    app = await TestApp.start();
    [acme, globex] = [await app.createTenant('Acme'), await app.createTenant('Globex')];
    for (const r of RESOURCES) ids[r.name] = await r.create(acme, ids);
  });
  afterAll(() => app.close());

  describe.each(RESOURCES.map((r) => [r.name, r] as const))('%s', (name, resource) => {
    it("is visible to its own tenant", async () => {
      const own = await app.get(`${resource.path}/${ids[name]}`, acme.token);
      expect(own.status).toBe(200);
      expect(own.body.id).toBe(ids[name]);
    });

    it("is a 404 to another tenant, exactly like an unknown or malformed id", async () => {
      const foreign = await app.get(`${resource.path}/${ids[name]}`, globex.token);
      const unknownId = `${ids[name].slice(0, -6)}000000`;
      const unknown = await app.get(`${resource.path}/${unknownId}`, globex.token);
      const malformed = await app.get(`${resource.path}/not-an-id`, globex.token);
      for (const res of [foreign, unknown, malformed]) {
        expect(res.status).toBe(404);
        expect(res.body.code).toBe('not_found');
      }
      expect(foreign.text).not.toContain('Acme');
    });

    it('is absent from the other tenant\'s list', async () => {
      const list = await app.get(`${resource.path}?limit=100`, globex.token);
      expect(list.status).toBe(200);
      expect(list.body.data).toEqual([]);
      expect(list.body.has_more).toBe(false);
      const ownList = await app.get(`${resource.path}?limit=100`, acme.token);
      expect(ownList.body.data.map((x: { id: string }) => x.id)).toContain(ids[name]);
    });

    it.each((resource.subPaths ?? []).map((s) => [`${s.method ?? 'GET'} ${resource.path}/:id${s.suffix}`, s] as const))(
      '%s is a 404 to another tenant',
      async (_label, sub) => {
        const res = await app.request(sub.method ?? 'GET', `${resource.path}/${ids[name]}${sub.suffix}`, { token: globex.token, body: sub.body?.() });
        expect(res.status).toBe(404);
      },
    );
  });

  it("another tenant's customer cannot be referenced: answered as for an unknown customer", async () => {
    const unknown = `${ids.customer.slice(0, -6)}000000`;
    const invoiceBody = (customerId: string) => ({ customer_id: customerId, line_items: [{ description: 'Work', quantity: 1, unit_amount: 100 }] });
    const foreign = await app.post('/api/v1/invoices', invoiceBody(ids.customer), globex.token);
    const missing = await app.post('/api/v1/invoices', invoiceBody(unknown), globex.token);
    expect(foreign.status).toBeGreaterThanOrEqual(400);
    expect({ status: foreign.status, code: foreign.body.code }).toEqual({ status: missing.status, code: missing.body.code });

    const payment = await app.post('/api/v1/payments', { customer_id: ids.customer, amount: 100 }, globex.token);
    expect(payment.status).toBeGreaterThanOrEqual(400);
    const invoices = await app.get(`/api/v1/invoices?customer_id=${ids.customer}`, globex.token);
    expect(invoices.status === 200 ? invoices.body.data : []).toEqual([]);
  });

  it('changes nothing of the other tenant', async () => {
    const customer = await app.get(`/api/v1/customers/${ids.customer}`, acme.token);
    expect(customer.body.name).toBe('Acme Buyer');
    const webhook = await app.get(`/api/v1/webhooks/${ids.webhook}`, acme.token);
    expect(webhook.status).toBe(200);
    // An external_id is unique per tenant only: another tenant may use the same one.
    expect((await app.post('/api/v1/customers', { name: 'Globex Buyer', currency: 'usd', external_id: 'CRM-1' }, globex.token)).status).toBe(201);
  });
});
