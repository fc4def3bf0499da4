import { ProblemError, ReceivablesClient, verifyWebhook, WebhookVerificationError } from '../../../clients/typescript/src';
import { TestApp, TestTenant } from '../../support/test-app';
import { WebhookReceiver } from '../../support/webhook-receiver';

process.env.WEBHOOK_RELAY_POLL_MS = '200';

/** The TypeScript client (clients/typescript) driving the real service over HTTP, the whole flow. */
describe('TypeScript client against the service', () => {
  let app: TestApp;
  let receiver: WebhookReceiver;
  let tenant: TestTenant;
  let client: ReceivablesClient;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    app = await TestApp.start();
    tenant = await app.createTenant('Client Co');
    client = new ReceivablesClient({ baseUrl: app.baseUrl, clientId: tenant.client_id, clientSecret: tenant.client_secret });
  });
  afterAll(async () => {
    await app.close();
    await receiver.close();
  });

  it('runs the flow: token, customer, invoices, paging, PATCH with If-Match, payments, manual match, statement, webhook', async () => {
    const token = await client.token();
    expect(token).toEqual(expect.any(String));
    expect(await client.token()).toBe(token); // cached until shortly before expiry

    const hook = await client.post('/webhooks', { body: { url: receiver.url('/ts'), events: ['invoice.*', 'payment.matched'] } });
    expect(hook.secret).toMatch(/^whsec_/);

    const customer = await client.post('/customers', { body: { name: 'Globex', email: 'ap@globex.test', currency: 'usd', credit_limit: 500000 } });
    expect(customer.id).toMatch(/^cus_/);

    const invoices = [];
    for (let i = 1; i <= 3; i++) {
      invoices.push(
        await client.post('/invoices', {
          body: { customer_id: customer.id, issue_date: '2026-11-02', line_items: [{ description: `Item ${i}`, quantity: 1, unit_amount: 10000 * i }] },
        }),
      );
    }
    expect(invoices.map((i) => i.total)).toEqual([10000, 20000, 30000]);

    // for await over every page (2 a page: 2 requests)
    const seen: string[] = [];
    for await (const invoice of client.list('/invoices', { query: { customer_id: customer.id, limit: 2, sort: 'created_at' } })) seen.push(invoice.id);
    expect(seen).toEqual(invoices.map((i) => i.id));
    let pages = 0;
    for await (const page of client.pages('/invoices', { query: { customer_id: customer.id, limit: 2 } })) {
      pages++;
      expect(page.data.length).toBeLessThanOrEqual(2);
    }
    expect(pages).toBe(2);

    // PATCH with If-Match: the current ETag works, a stale one is a typed 412
    const read = await client.send('get', '/invoices/{id}', { path: { id: invoices[0].id } });
    expect(read.etag).toMatch(/^"\d+"$/);
    const patched = await client.patch('/invoices/{id}', { path: { id: invoices[0].id }, body: { memo: 'Thanks', po_number: null }, ifMatch: read.etag! });
    expect(patched.memo).toBe('Thanks');
    const stale = await client.patch('/invoices/{id}', { path: { id: invoices[0].id }, body: { memo: 'late' }, ifMatch: read.etag! }).catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(ProblemError);
    expect(stale).toMatchObject({ status: 412, code: 'precondition_failed' });
    expect((stale as ProblemError).requestId).toEqual(expect.any(String));

    // Validation errors are typed problems too
    const bad = await client.post('/customers', { body: { name: '' } as never }).catch((e: unknown) => e);
    expect(bad).toMatchObject({ status: 400, code: 'validation_failed' });

    // A payment matched automatically by reference
    const auto = await client.post('/payments', {
      body: { customer_id: customer.id, amount: 10000, currency: 'usd', payment_date: '2026-11-20', method: 'ach', reference: invoices[0].number },
    });
    expect(auto.match).toMatchObject({ status: 'matched', rule: 'reference' });

    // The same Idempotency-Key returns the same payment instead of a second one
    const key = `pay-${Date.now()}`;
    const payment = ({ customer_id: customer.id, amount: 12345, currency: 'usd', payment_date: '2026-11-21', method: 'wire' as const, reference: 'no such thing' });
    const unmatched = await client.post('/payments', { body: payment, idempotencyKey: key });
    expect((await client.post('/payments', { body: payment, idempotencyKey: key })).id).toBe(unmatched.id);
    expect(unmatched.match.status).not.toBe('matched');

    // Manual match of the rest onto the third invoice
    const manual = await client.post('/payments/{id}/match', { path: { id: unmatched.id }, body: { applications: [{ invoice_id: invoices[2].id }] } });
    expect(manual.invoices[0]).toMatchObject({ id: invoices[2].id, amount_due: 30000 - 12345 });

    const statement = await client.get('/customers/{id}/statement', { path: { id: customer.id }, query: { from: '2026-11-01' } });
    expect(statement).toMatchObject({ opening_balance: 0, total_debits: 60000, total_credits: 22345, closing_balance: 60000 - 22345 });

    // A bank file as the bank sent it: 202, then a payment per credit in the background
    const csv = 'date,amount,currency,reference,payer_name,payer_account,bank_entry_id\n2026-11-26,50.00,USD,INV-none,GLOBEX,DE89370400440532013000,TS-1\n';
    const imported = await client.importBankStatement(csv, 'csv');
    expect(imported).toMatchObject({ id: expect.stringMatching(/^bst_/), format: 'csv' });
    let done = imported;
    for (const end = Date.now() + 15_000; done.status !== 'completed' && Date.now() < end; ) {
      await new Promise((r) => setTimeout(r, 50)); // polling the import's status, with a deadline
      done = await client.get('/bank-statements/{id}', { path: { id: imported.id } });
    }
    expect(done).toMatchObject({ status: 'completed', payments_created: 1 });

    // A delivery, verified with the helper over the exact bytes received
    const [delivery] = await receiver.waitFor((r) => r.some((x) => x.path === '/ts' && x.event.type === 'payment.matched'), 15_000, 'payment.matched').then((r) =>
      r.filter((x) => x.path === '/ts' && x.event.type === 'payment.matched'),
    );
    const event = verifyWebhook(hook.secret!, delivery.headers, delivery.body);
    expect(event.type).toBe('payment.matched');
    expect(event.id).toBe(delivery.headers['webhook-id']);
    expect(() => verifyWebhook(hook.secret!, delivery.headers, delivery.body.replace('payment', 'pAyment'))).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(hook.secret!, delivery.headers, delivery.body, { now: new Date(Date.now() + 3_600_000) })).toThrow(/tolerance/);
  });

  it('retries 429 after Retry-After and 5xx/network errors with the same Idempotency-Key', async () => {
    const calls: Array<{ url: string; key: string | null }> = [];
    const sleeps: number[] = [];
    let n = 0;
    const flaky: typeof fetch = async (input, init) => {
      const url = String(input);
      const key = new Headers(init?.headers).get('idempotency-key');
      if (!url.endsWith('/auth/token')) {
        calls.push({ url, key });
        n++;
        if (n === 1) throw new TypeError('fetch failed'); // connection reset
        if (n === 2) return new Response(JSON.stringify({ status: 429, code: 'rate_limited', title: 'Too Many Requests', detail: 'slow down' }), { status: 429, headers: { 'content-type': 'application/problem+json', 'retry-after': '2' } });
        if (n === 3) return new Response('{"status":503,"code":"service_unavailable","title":"x","detail":"y"}', { status: 503, headers: { 'content-type': 'application/problem+json' } });
      }
      return fetch(input, init);
    };
    const c = new ReceivablesClient({ baseUrl: `${app.baseUrl}/api/v1`, clientId: tenant.client_id, clientSecret: tenant.client_secret, fetch: flaky, sleep: async (ms) => void sleeps.push(ms) });
    const customer = await c.post('/customers', { body: { name: 'Retried', currency: 'usd' } });
    expect(customer.name).toBe('Retried');
    expect(calls).toHaveLength(4);
    expect(new Set(calls.map((x) => x.key)).size).toBe(1);
    expect(calls[0].key).toEqual(expect.any(String));
    expect(sleeps[1]).toBe(2000); // Retry-After honoured
    expect((await app.query(`SELECT count(*)::int AS n FROM customers WHERE tenant_id = $1 AND name = 'Retried'`, [tenant.tenant_id]))[0].n).toBe(1);

    // 400s are not retried; maxRetries bounds the rest
    n = 100;
    const always503: typeof fetch = async (input, init) =>
      String(input).endsWith('/auth/token') ? fetch(input, init) : new Response('{"status":503,"title":"x","detail":"down"}', { status: 503, headers: { 'content-type': 'application/problem+json' } });
    let attempts = 0;
    const d = new ReceivablesClient({ baseUrl: app.baseUrl, clientId: tenant.client_id, clientSecret: tenant.client_secret, maxRetries: 2, sleep: async () => void attempts++, fetch: always503 });
    await expect(d.get('/customers')).rejects.toMatchObject({ status: 503 });
    expect(attempts).toBe(2);
  });

  it('a 401 (token revoked or expired early) fetches a new token and repeats the call once', async () => {
    const seen: string[] = [];
    let rejected = 0;
    let tokenRequests = 0;
    const revoking: typeof fetch = async (input, init) => {
      if (String(input).endsWith('/auth/token')) tokenRequests++;
      else {
        seen.push(new Headers(init?.headers).get('authorization')!);
        if (rejected++ === 0) return new Response('{"status":401,"code":"unauthorized","title":"Unauthorized","detail":"revoked"}', { status: 401, headers: { 'content-type': 'application/problem+json' } });
      }
      return fetch(input, init);
    };
    const c = new ReceivablesClient({ baseUrl: app.baseUrl, clientId: tenant.client_id, clientSecret: tenant.client_secret, fetch: revoking });
    await c.get('/customers');
    expect(seen).toHaveLength(2);
    expect(tokenRequests).toBe(2); // the cached token was dropped and a new one fetched
    const always401: typeof fetch = async (input, init) =>
      String(input).endsWith('/auth/token') ? fetch(input, init) : new Response('{"status":401,"code":"unauthorized"}', { status: 401, headers: { 'content-type': 'application/problem+json' } });
    const d = new ReceivablesClient({ baseUrl: app.baseUrl, clientId: tenant.client_id, clientSecret: tenant.client_secret, fetch: always401 });
    await expect(d.get('/customers')).rejects.toMatchObject({ status: 401, code: 'unauthorized' });
  });

  it('refreshes the token shortly before it expires', async () => {
    let tokenRequests = 0;
    const counting: typeof fetch = async (input, init) => {
      if (String(input).endsWith('/auth/token')) tokenRequests++;
      return fetch(input, init);
    };
    // A skew longer than the token's life: every call finds the token about to expire.
    const c = new ReceivablesClient({ baseUrl: app.baseUrl, clientId: tenant.client_id, clientSecret: tenant.client_secret, fetch: counting, tokenRefreshSkewSeconds: 7200 });
    await c.get('/customers');
    await c.get('/customers');
    expect(tokenRequests).toBe(2);
    const e = new ReceivablesClient({ baseUrl: app.baseUrl, clientId: tenant.client_id, clientSecret: tenant.client_secret, fetch: counting });
    tokenRequests = 0;
    await Promise.all([e.get('/customers'), e.get('/customers'), e.get('/customers')]);
    expect(tokenRequests).toBe(1);
  });
});
