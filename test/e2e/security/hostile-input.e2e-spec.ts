import { connect } from 'node:net';
import { CustomerMother } from '../../support/mothers/customer.mother';
import { ApiResponse, expectProblem, TestApp, TestTenant } from '../../support/test-app';

/** Sends raw bytes and returns the raw response (for what no HTTP client would send). */
function rawRequest(app: TestApp, text: string): Promise<string> {
  const url = new URL(app.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => socket.end(text));
    let out = '';
    socket.on('data', (d) => (out += d.toString('latin1')));
    socket.on('close', () => resolve(out));
    socket.on('error', reject);
  });
}

function parseRaw(raw: string): { status: number; headers: Record<string, string>; body: any } {
  const [head, body] = raw.split('\r\n\r\n');
  const [statusLine, ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) };
}

describe('hostile input (docs/security.md)', () => {
  let app: TestApp;
  let t: TestTenant;
  let customerId: string;

  beforeAll(async () => {
    app = await TestApp.start();
    t = await app.createTenant('Hostile');
    customerId = (await app.post('/api/v1/customers', CustomerMother.request(), t.token)).body.id;
  });
  afterAll(() => app.close());

  const rawJson = (method: string, path: string, body: string) =>
    app.request(method, path, { token: t.token, rawBody: body, headers: { 'content-type': 'application/json' } });

  describe('JSON nested deeper than 400 levels', () => {
    it.each([
      ['an array body', '['.repeat(5000) + ']'.repeat(5000)],
      ['metadata', `{"name":"Deep","currency":"usd","metadata":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`],
    ])('is a 400 problem, not a stack overflow (%s)', async (_label, body) => {
      const res = await rawJson('POST', '/api/v1/customers', body);
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors[0].code).toBe('max_depth');
    });
  });

  describe('U+0000 and lone surrogates are a 400 wherever they arrive', () => {
    const nul = '\u0000';
    const lone = '\ud800';
    type Send = (customer: string) => Promise<ApiResponse>;
    const send = (method: string, path: string, payload: (customer: string) => unknown): Send => (customer) =>
      app.request(method, path.replace(':customer', customer), { token: t.token, body: payload(customer) });
    const get = (path: string): Send => () => app.get(path, t.token);
    const line = { description: 'x', quantity: 1, unit_amount: 100 };
    const places: Array<[string, Send]> = [
      ['customer name', send('POST', '/api/v1/customers', () => CustomerMother.request({ name: `a${nul}b` }))],
      ['customer name (lone surrogate)', send('POST', '/api/v1/customers', () => CustomerMother.request({ name: `a${lone}b` }))],
      ['customer email', send('POST', '/api/v1/customers', () => CustomerMother.request({ email: `a${nul}@x.test` }))],
      ['customer address', send('POST', '/api/v1/customers', () => CustomerMother.request({ billing_address: { city: `x${lone}` } }))],
      ['metadata key', send('POST', '/api/v1/customers', () => CustomerMother.request({ metadata: { [`k${nul}`]: 1 } }))],
      ['metadata value', send('POST', '/api/v1/customers', () => CustomerMother.request({ metadata: { k: `v${nul}` } }))],
      ['customer patch', send('PATCH', '/api/v1/customers/:customer', () => ({ name: `a${nul}` }))],
      ['invoice line description', send('POST', '/api/v1/invoices', (c) => ({ customer_id: c, line_items: [{ ...line, description: `x${nul}` }] }))],
      ['invoice number', send('POST', '/api/v1/invoices', (c) => ({ customer_id: c, number: `N${lone}`, line_items: [line] }))],
      ['payment reference', send('POST', '/api/v1/payments', (c) => ({ customer_id: c, amount: 100, reference: `r${nul}` }))],
      ['webhook url', send('POST', '/api/v1/webhooks', () => ({ url: `https://example.com/${nul}`, events: ['*'] }))],
      ['webhook description', send('POST', '/api/v1/webhooks', () => ({ url: 'https://example.com/h', events: ['*'], description: `d${lone}` }))],
      ['a path parameter', get('/api/v1/invoices/inv_%00')],
      ['a filter', get('/api/v1/customers?q=a%00b')],
      ['the cursor', get('/api/v1/invoices?cursor=%00')],
    ];
    const rows = () =>
      app.query('SELECT (SELECT count(*) FROM customers) + (SELECT count(*) FROM invoices) + (SELECT count(*) FROM payments) + (SELECT count(*) FROM webhook_endpoints) AS n');

    it.each(places)('%s', async (_label, request) => {
      const before = await rows();
      expectProblem(await request(customerId), 400, 'validation_failed');
      expect(await rows()).toEqual(before);
    });
  });

  describe('numbers are taken exactly as written (no silent float rounding)', () => {
    const invoice = (line: string) =>
      rawJson('POST', '/api/v1/invoices', `{"customer_id":"${customerId}","line_items":[{"description":"Exact","unit_amount":1000,${line}}]}`);

    it.each(['"quantity":1.00000000000000001', '"quantity":2.50000000000000001', '"quantity":1,"tax_rate":8.25000000000000001', '"quantity":1e400'])(
      'refuses %s instead of rounding it',
      async (line) => {
        const res = await invoice(line);
        expectProblem(res, 400, 'validation_failed');
        expect(res.body.errors[0].code).toBe('inexact_number');
      },
    );

    it('keeps a quantity with trailing zeros (1.5000000000000000 is 1.5)', async () => {
      const res = await invoice('"quantity":1.5000000000000000');
      expect(res.status).toBe(201);
      expect(res.body.line_items[0]).toMatchObject({ quantity: 1.5, amount: 1500 });
    });
  });

  describe('framework-level errors are problem+json too', () => {
    it('414 for a path segment over 100 characters', async () => {
      const res = await app.get(`/api/v1/invoices/${'a'.repeat(200)}`, t.token);
      expectProblem(res, 414, 'uri_too_long');
    });

    it('400 for a URL that is not valid percent-encoding', async () => {
      const res = await app.get('/api/v1/invoices/%E0%A4%A', t.token);
      expectProblem(res, 400, 'validation_failed');
    });

    it('431 for headers over 16 KiB', async () => {
      const res = await app.get('/api/v1/status', undefined, { 'x-padding': 'a'.repeat(20_000) });
      expect(res.status).toBe(431);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(res.body).toMatchObject({ status: 431, code: 'headers_too_large', request_id: res.headers.get('x-request-id') });
    });

    it('400 for a request that is not valid HTTP', async () => {
      const res = parseRaw(await rawRequest(app, 'GET /api/v1/status HTTP/1.1\r\nHost: x\r\nNot a header\r\n\r\n'));
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toBe('application/problem+json');
      expect(res.body).toMatchObject({ status: 400, code: 'validation_failed', request_id: res.headers['x-request-id'] });
    });

    it('the server still answers afterwards', async () => {
      expect((await app.get('/health')).status).toBe(200);
    });
  });

  describe('Cache-Control: no-store on every authenticated response', () => {
    it.each([
      ['a lean read (list)', () => app.get('/api/v1/invoices', t.token)],
      ['a lean read (detail)', () => app.get(`/api/v1/customers/${customerId}`, t.token)],
      ['a Nest route', () => app.get('/api/v1/payments', t.token)],
      ['a write', () => app.post('/api/v1/customers', CustomerMother.request(), t.token)],
      ['an error', () => app.get('/api/v1/invoices/inv_01jc9x7m3ef0ab6yr2t0n4q8zd', t.token)],
      ['a refused token', () => app.get('/api/v1/invoices', 'not-a-token')],
    ])('%s', async (_label, send) => {
      expect((await send()).headers.get('cache-control')).toBe('no-store');
    });

    it('but not on public documents fetched without credentials', async () => {
      expect((await app.get('/api/v1/openapi.json')).headers.get('cache-control')).not.toBe('no-store');
    });
  });
});
