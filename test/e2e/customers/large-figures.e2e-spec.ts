import { toJson } from '../../../src/shared/http/json-reply';
import { TestApp, TestTenant } from '../../support/test-app';
import { Receivables } from '../payments/support';

/**
 * Issue 12 finding 3: every amount is at most 10^12, but a customer's sums are not bounded —
 * three invoices of 4 × 10^15 already pass 2^53 (9,007,199,254,740,992). Its figures must stay
 * exact, and its reads must answer (they were a 500 for good).
 */
describe('figures beyond 2^53', () => {
  let app: TestApp;
  let t: TestTenant;
  let r: Receivables;

  beforeAll(async () => {
    app = await TestApp.start({ env: { WORKERS_ENABLED: 'false' } });
    t = await app.createTenant();
    r = new Receivables(app, t);
  });
  afterAll(() => app.close());

  it('reads a customer whose balance is 12,000,000,000,000,001 exactly, in the detail and in the list', async () => {
    const c = await r.customer({ name: 'Very Large', credit_limit: 1_000_000_000_000 });
    for (let i = 0; i < 3; i++) {
      await r.invoice(c.id, 0, { line_items: [{ description: 'Turbines', quantity: 4000, unit_amount: 1_000_000_000_000 }] });
    }
    await r.invoice(c.id, 1);
    const exact = '12000000000000001'; // odd and above 2^53: no double holds it

    const detail = await app.get(`/api/v1/customers/${c.id}`, t.token);
    expect(detail.status).toBe(200);
    for (const field of ['balance', 'total_invoiced', 'current']) expect(detail.text).toContain(`"${field}":${exact}`);
    expect(detail.text).toContain(`"credit_available":-11999000000000001`);
    expect(detail.body.credit_status).toBe('over_limit');

    const list = await app.get('/api/v1/customers?sort=-balance&limit=1', t.token);
    expect(list.status).toBe(200);
    expect(list.text).toContain(`"balance":${exact}`);

    const paid = await r.payment({ customer_id: c.id, amount: 1_000_000_000_000, auto_match: 'none' });
    expect(paid.status).toBe(201);
    const after = await app.get(`/api/v1/customers/${c.id}`, t.token);
    expect(after.text).toContain('"balance":11999000000000001');
    expect(after.text).toContain('"unapplied_payments":1000000000000');

    // The statement sums the same history: exact JSON, CSV and a PDF that prints.
    const statement = await app.get(`/api/v1/customers/${c.id}/statement?from=2000-01-01`, t.token);
    expect(statement.status).toBe(200);
    expect(statement.text).toContain('"closing_balance":11999000000000001');
    expect(statement.text).toContain('"total_debits":12000000000000001');
    const csv = await app.get(`/api/v1/customers/${c.id}/statement?from=2000-01-01`, t.token, { accept: 'text/csv' });
    expect(csv.status).toBe(200);
    expect(csv.text).toContain(',11999000000000001,usd,');
    expect(csv.text).toContain('119990000000000.01');
    const pdf = await app.get(`/api/v1/customers/${c.id}/statement?from=2000-01-01`, t.token, { accept: 'application/pdf' });
    expect(pdf.status).toBe(200);
  });

  it('writes bigints as exact JSON numbers and everything else as JSON.stringify does', () => {
    expect(toJson({ a: 1, b: 'x"\u0000y', c: [2n ** 60n, -(2n ** 60n)], d: null })).toBe(
      '{"a":1,"b":"x\\"\\u0000y","c":[1152921504606846976,-1152921504606846976],"d":null}',
    );
    expect(toJson({ n: 12 })).toBe(JSON.stringify({ n: 12 }));
  });
});
