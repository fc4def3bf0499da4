import { addDays } from '../../../src/shared/domain/clock';
import { CustomerMother } from '../../support/mothers/customer.mother';
import { InvoiceMother } from '../../support/mothers/invoice.mother';
import { expectProblem, TestApp, TestTenant } from '../../support/test-app';

describe('POST /invoices', () => {
  let app: TestApp;
  let t: TestTenant;
  let other: TestTenant;

  beforeAll(async () => {
    app = await TestApp.start();
    [t, other] = await Promise.all([app.createTenant('Acme'), app.createTenant('Other')]);
  });
  afterAll(() => app.close());

  const count = async (table: string, tenantId = t.tenant_id) =>
    Number((await app.query(`SELECT count(*)::int AS n FROM ${table} WHERE tenant_id = $1`, [tenantId]))[0].n);

  it('creates an open invoice and its customer, with defaults, an ETag and its events', async () => {
    const res = await app.post(
      '/api/v1/invoices',
      InvoiceMother.request({
        customer: { name: 'New Co', email: 'AP@NewCo.example', external_id: 'crm-1', payment_terms_days: 14 },
        currency: 'USD',
        po_number: 'PO-1',
        line_items: [{ description: 'Widgets', quantity: 3, unit_amount: 1250, discount_amount: 250, tax_rate: 10 }],
      }),
      t.token,
    );
    expect(res.status).toBe(201);
    expect(res.headers.get('etag')).toBe('"1"');
    const today = new Date().toISOString().slice(0, 10);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^inv_/),
      number: expect.stringMatching(/^INV-\d{6}$/),
      customer_id: expect.stringMatching(/^cus_/),
      customer: { name: 'New Co', email: 'AP@NewCo.example' },
      status: 'open',
      currency: 'usd',
      issue_date: today,
      due_date: addDays(res.body.issue_date, 14), // the customer's payment terms
      po_number: 'PO-1',
      memo: null,
      line_items: [{ id: expect.stringMatching(/^li_/), description: 'Widgets', quantity: 3, unit_amount: 1250, discount_amount: 250, tax_rate: 10, amount: 3500, tax_amount: 350 }],
      subtotal: 3750,
      discount_total: 250,
      tax_total: 350,
      total: 3850,
      amount_paid: 0,
      amount_due: 3850,
      overdue: false,
      days_past_due: 0,
      dispute: null,
      metadata: {},
      version: 1,
      payments: [],
    });
    const customer = await app.get(`/api/v1/customers/${res.body.customer_id}`, t.token);
    expect(customer.body).toMatchObject({ name: 'New Co', external_id: 'crm-1', currency: 'usd', payment_terms_days: 14, balance: 3850 });

    const events = await app.query(`SELECT type, data FROM outbox WHERE tenant_id = $1 AND aggregate_id = $2 ORDER BY seq`, [t.tenant_id, res.body.id]);
    expect(events.map((e) => e.type)).toEqual(['invoice.created', 'invoice.finalized']);
    const { payments: _, credit_notes: __, write_offs: ___, ...withoutDetail } = res.body;
    expect(events[0].data.object).toEqual(withoutDetail); // events carry the public representation
  });

  it('matches the customer by id, then external_id, then email (case-insensitive)', async () => {
    const c = (await app.post('/api/v1/customers', CustomerMother.request({ external_id: 'ext-42', email: 'Billing@Match.example' }), t.token)).body;
    const before = await count('customers');
    for (const customer of [{ id: c.id }, { external_id: 'ext-42', name: 'ignored' }, { email: 'billing@MATCH.example' }, { id: 'cus_01jc9x7m3ef0ab6yr2t0n4q8zd', external_id: 'ext-42' }]) {
      const res = await app.post('/api/v1/invoices', InvoiceMother.request({ customer }), t.token);
      expect({ status: res.status, customer_id: res.body.customer_id }).toEqual({ status: 201, customer_id: c.id });
    }
    expect(await count('customers')).toBe(before);
    const byId = await app.post('/api/v1/invoices', InvoiceMother.request({ customer_id: c.id }), t.token);
    expect(byId.body.customer).toEqual({ id: c.id, name: c.name, email: c.email });
  });

  it("creates a new customer when nothing matches, in the invoice's currency", async () => {
    const res = await app.post('/api/v1/invoices', InvoiceMother.request({ customer: { name: 'Fresh', email: 'fresh@x.example' }, currency: 'eur' }), t.token);
    expect(res.status).toBe(201);
    expect((await app.get(`/api/v1/customers/${res.body.customer_id}`, t.token)).body).toMatchObject({ name: 'Fresh', currency: 'eur' });
  });

  it("answers 404 for a customer_id that is unknown, malformed or another tenant's", async () => {
    const foreign = (await app.post('/api/v1/customers', CustomerMother.request(), other.token)).body;
    for (const id of ['cus_01jc9x7m3ef0ab6yr2t0n4q8zd', 'nope', foreign.id]) {
      expectProblem(await app.post('/api/v1/invoices', InvoiceMother.request({ customer_id: id }), t.token), 404, 'not_found');
    }
  });

  describe('bad input is a 400 problem and creates nothing', () => {
    let customerId: string;
    beforeAll(async () => {
      customerId = (await app.post('/api/v1/customers', CustomerMother.request(), t.token)).body.id;
    });

    const base = (overrides: Record<string, unknown> = {}) => (id: string) => InvoiceMother.request({ customer_id: id, ...overrides });
    it.each<[string, (customerId: string) => Record<string, unknown>, string]>([
      ['neither customer_id nor customer', () => InvoiceMother.request(), 'customer_id'],
      ['both customer_id and customer', base({ customer: { name: 'x' } }), 'customer_id'],
      ['a currency other than the customer has', base({ currency: 'eur' }), 'currency'],
      ['read-only amount_paid', base({ amount_paid: 0 }), 'amount_paid'],
      ['read-only total', base({ total: 100 }), 'total'],
      ['read-only subtotal', base({ subtotal: 100 }), 'subtotal'],
      ['read-only line amount', base({ line_items: [{ ...InvoiceMother.line(), amount: 5 }] }), 'line_items[0].amount'],
      ['an unknown field', base({ colour: 'red' }), 'colour'],
      ['an unknown status', base({ status: 'closed' }), 'status'],
      ['a status other than draft or open', base({ status: 'paid' }), 'status'],
      ['no lines', base({ line_items: [] }), 'line_items'],
      ['quantity 0', base({ line_items: [InvoiceMother.line({ quantity: 0 })] }), 'line_items[0].quantity'],
      ['quantity with 5 decimals', base({ line_items: [InvoiceMother.line({ quantity: 1.23456 })] }), 'line_items[0].quantity'],
      ['quantity as a string', base({ line_items: [InvoiceMother.line({ quantity: '1' })] }), 'line_items[0].quantity'],
      ['a discount above the gross amount', base({ line_items: [InvoiceMother.line({ discount_amount: 10001 })] }), 'line_items[0].discount_amount'],
      ['tax_rate with 5 decimals', base({ line_items: [InvoiceMother.line({ tax_rate: 1.00001 })] }), 'line_items[0].tax_rate'],
      ['an impossible date', base({ issue_date: '2026-02-30' }), 'issue_date'],
      ['due before issue', base({ issue_date: '2026-03-10', due_date: '2026-03-09' }), 'due_date'],
      ['a non-integer amount', base({ line_items: [InvoiceMother.line({ unit_amount: 10.5 })] }), 'line_items[0].unit_amount'],
      ['a bad number', base({ number: 'has spaces' }), 'number'],
      ['nested metadata', base({ metadata: { a: { b: 1 } } }), 'metadata'],
      ['a new customer without a name', () => InvoiceMother.request({ customer: { email: 'nobody@x.example' }, currency: 'usd' }), 'name'],
    ])('%s', async (_, body, field) => {
      const before = [await count('invoices'), await count('customers'), await count('ledger_entries'), await count('outbox')];
      const res = await app.post('/api/v1/invoices', body(customerId), t.token);
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
      expect([await count('invoices'), await count('customers'), await count('ledger_entries'), await count('outbox')]).toEqual(before);
    });

    it('malformed JSON', async () => {
      const res = await app.request('POST', '/api/v1/invoices', { token: t.token, rawBody: '{"line_items": [', headers: { 'content-type': 'application/json' } });
      expectProblem(res, 400, 'malformed_json');
    });
  });

  it('takes an explicit number and refuses a duplicate, case-insensitively (409 conflict)', async () => {
    const c = (await app.post('/api/v1/customers', CustomerMother.request(), t.token)).body;
    const first = await app.post('/api/v1/invoices', InvoiceMother.request({ customer_id: c.id, number: 'ACME-2026-001' }), t.token);
    expect(first.body.number).toBe('ACME-2026-001');
    const before = await count('invoices');
    expectProblem(await app.post('/api/v1/invoices', InvoiceMother.request({ customer_id: c.id, number: 'acme-2026-001' }), t.token), 409, 'conflict');
    expect(await count('invoices')).toBe(before);
    // Another tenant may use the same number.
    const oc = (await app.post('/api/v1/customers', CustomerMother.request(), other.token)).body;
    expect((await app.post('/api/v1/invoices', InvoiceMother.request({ customer_id: oc.id, number: 'ACME-2026-001' }), other.token)).status).toBe(201);
  });

  it('creates a draft that moves no balance', async () => {
    const c = (await app.post('/api/v1/customers', CustomerMother.request(), t.token)).body;
    const res = await app.post('/api/v1/invoices', InvoiceMother.request({ customer_id: c.id, status: 'draft' }), t.token);
    expect(res.body).toMatchObject({ status: 'draft', amount_due: 10000 });
    expect((await app.get(`/api/v1/customers/${c.id}`, t.token)).body.balance).toBe(0);
  });

  it('numbers 20 parallel creations INV-000001…INV-000020, unique and gapless', async () => {
    const fresh = await app.createTenant('Numbers');
    const c = (await app.post('/api/v1/customers', CustomerMother.request(), fresh.token)).body;
    const results = await Promise.all(
      Array.from({ length: 20 }, () => app.post('/api/v1/invoices', InvoiceMother.request({ customer_id: c.id }), fresh.token)),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(201));
    const numbers = results.map((r) => r.body.number).sort();
    expect(numbers).toEqual(Array.from({ length: 20 }, (_, i) => `INV-${String(i + 1).padStart(6, '0')}`));
    // A failed creation does not burn a number.
    expectProblem(await app.post('/api/v1/invoices', InvoiceMother.request({ customer_id: c.id, line_items: [InvoiceMother.line({ quantity: 0 })] }), fresh.token), 400, 'validation_failed');
    expect((await app.post('/api/v1/invoices', InvoiceMother.request({ customer_id: c.id }), fresh.token)).body.number).toBe('INV-000021');
  });

  it('skips a generated number a client already took explicitly', async () => {
    const fresh = await app.createTenant('Skip');
    const c = (await app.post('/api/v1/customers', CustomerMother.request(), fresh.token)).body;
    await app.post('/api/v1/invoices', InvoiceMother.request({ customer_id: c.id, number: 'inv-000002' }), fresh.token);
    const a = await app.post('/api/v1/invoices', InvoiceMother.request({ customer_id: c.id }), fresh.token);
    const b = await app.post('/api/v1/invoices', InvoiceMother.request({ customer_id: c.id }), fresh.token);
    expect([a.body.number, b.body.number]).toEqual(['INV-000001', 'INV-000003']);
  });

  it('needs the invoices:write scope', async () => {
    const readOnly = await app.createClient(t.tenant_id, 'invoices:read customers:read');
    expectProblem(await app.post('/api/v1/invoices', InvoiceMother.request({ customer: { name: 'x' }, currency: 'usd' }), readOnly.token), 403, 'forbidden');
  });

  it('is documented in the OpenAPI document with responses, errors and examples', async () => {
    const doc = (await app.get('/api/v1/openapi.json')).body;
    const ops: [string, string, string[]][] = [
      ['/api/v1/invoices', 'get', ['200', '400', '401', '403']],
      ['/api/v1/invoices', 'post', ['201', '400', '401', '403', '404', '409']],
      ['/api/v1/invoices/{id}', 'get', ['200', '401', '403', '404']],
      ['/api/v1/invoices/{id}', 'patch', ['200', '400', '401', '403', '404', '409', '412']],
      ['/api/v1/customers', 'get', ['200', '400', '401', '403']],
      ['/api/v1/customers', 'post', ['201', '400', '401', '403', '409']],
      ['/api/v1/customers/{id}', 'get', ['200', '400', '401', '403', '404']],
      ['/api/v1/customers/{id}', 'patch', ['200', '400', '401', '403', '404', '409']],
    ];
    for (const [path, method, statuses] of ops) {
      const op = doc.paths[path]?.[method];
      expect({ path, method, statuses: Object.keys(op?.responses ?? {}) }).toEqual({ path, method, statuses: expect.arrayContaining(statuses) });
      expect(op.security).toBeDefined();
      if (method === 'post' || method === 'patch') expect(Object.keys(op.requestBody.content['application/json'].examples ?? {}).length).toBeGreaterThan(0);
    }
    const invoice = doc.components.schemas.InvoiceDetailResponse;
    expect(invoice.allOf ?? invoice.properties).toBeDefined();
    expect(JSON.stringify(doc.components.schemas.InvoiceResponse.properties.line_items)).toContain('LineItemResponse');
    expect(doc.components.schemas.CustomerDetailResponse).toBeDefined();
    expect(doc.paths['/api/v1/invoices/{id}'].patch.parameters.map((p: { name: string }) => p.name)).toContain('If-Match');
  });
});
