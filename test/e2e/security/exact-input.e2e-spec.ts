import { expectProblem, TestApp, TestTenant } from '../../support/test-app';

/** Issue 13, finding 7: idempotency fingerprints a canonical body; currencies come from ISO 4217's list. */
describe('exact input', () => {
  let app: TestApp;
  let t: TestTenant;

  beforeAll(async () => {
    app = await TestApp.start();
    t = await app.createTenant('Exact');
  });
  afterAll(() => app.close());

  const raw = (body: string, key: string) =>
    app.request('POST', '/api/v1/customers', { token: t.token, rawBody: body, headers: { 'content-type': 'application/json', 'idempotency-key': key } });

  describe('Idempotency-Key', () => {
    it('replays the same body sent with its keys (at every level) in another order', async () => {
      const first = await raw('{"name":"Ordered","currency":"usd","billing_address":{"city":"Lyon","country":"FR"},"metadata":{"a":1,"b":2}}', 'order-1');
      expect(first.status).toBe(201);
      const again = await raw('{"metadata":{"b":2,"a":1},"billing_address":{"country":"FR","city":"Lyon"},"currency":"usd","name":"Ordered"}', 'order-1');
      expect(again.status).toBe(201);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(first.body);
    });

    it('treats 1.5 and 1.50 as one value, but another value as another request', async () => {
      const customer = (await app.post('/api/v1/customers', { name: 'Numbers', currency: 'usd' }, t.token)).body.id;
      const invoice = (q: string, key: string) =>
        app.request('POST', '/api/v1/invoices', {
          token: t.token,
          rawBody: `{"customer_id":"${customer}","line_items":[{"description":"x","unit_amount":100,"quantity":${q}}]}`,
          headers: { 'content-type': 'application/json', 'idempotency-key': key },
        });
      expect((await invoice('1.5', 'num-1')).status).toBe(201);
      expect((await invoice('1.50', 'num-1')).headers.get('idempotent-replayed')).toBe('true');
      expectProblem(await invoice('1.25', 'num-1'), 422, 'idempotency_key_reused');
    });

    it('still refuses the same key with a different nested value', async () => {
      expect((await raw('{"name":"Nested","currency":"usd","metadata":{"a":1}}', 'nested-1')).status).toBe(201);
      expectProblem(await raw('{"name":"Nested","currency":"usd","metadata":{"a":2}}', 'nested-1'), 422, 'idempotency_key_reused');
    });
  });

  describe("currencies are checked against ISO 4217's list", () => {
    it.each(['xyz', 'ABC', 'hrk'])('%s is a 400 (three letters, not a current code)', async (currency) => {
      const res = await app.post('/api/v1/customers', { name: `Currency ${currency}`, currency }, t.token);
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors[0].field).toBe('currency');
    });

    it('a payment in a currency not on the list is a 400', async () => {
      expectProblem(await app.post('/api/v1/payments', { amount: 100, currency: 'abc' }, t.token), 400, 'validation_failed');
    });

    it('codes on the list are accepted in either case', async () => {
      const res = await app.post('/api/v1/customers', { name: 'Zimbabwe Gold', currency: 'ZWG' }, t.token);
      expect(res.status).toBe(201);
      expect(res.body.currency).toBe('zwg');
    });
  });
});
