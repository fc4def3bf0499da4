import { FixedClock } from '../../../src/shared/domain/clock';
import { TestApp, TestTenant } from '../../support/test-app';
import { Receivables } from './support';

/**
 * The 201 of POST /payments is built from what its transaction wrote (the matched aggregate), not
 * read back after commit (docs/adr/0043). It must be exactly what a GET of the payment answers
 * right after: the same fields, values and key order — applications in the read's order, the
 * jsonb columns' objects (metadata, match suggestions) with their keys as jsonb keeps them.
 */
describe('POST /payments: the 201 is what a read of the payment answers', () => {
  let app: TestApp;
  let tenant: TestTenant;
  let r: Receivables;
  const clock = new FixedClock(new Date('2026-03-15T12:00:00Z'));

  beforeAll(async () => {
    app = await TestApp.start({ clock, env: { WORKERS_ENABLED: 'false' } });
    tenant = await app.createTenant();
    r = new Receivables(app, tenant);
    const res = await app.patch('/api/v1/settings', { cash_application: { short_pay_tolerance: { amount: 500, percent: 1 }, payer_name_matching: true } }, tenant.token);
    expect(res.status).toBe(200);
  });
  afterAll(async () => {
    await app.close();
  });

  /** Posts the payment and compares its 201, as sent, with a GET's answer, as sent. */
  async function sameAsRead(body: Record<string, unknown>): Promise<any> {
    const created = await r.payment(body);
    expect([created.status, created.status === 201 ? '' : created.text]).toEqual([201, '']);
    const read = await app.get(`/api/v1/payments/${created.body.id}`, tenant.token);
    expect(read.status).toBe(200);
    expect(created.text).toBe(read.text);
    return created.body;
  }

  // Keys out of jsonb's order (longer before shorter, unsorted; two-byte characters).
  const metadata = { zeta: 1, a: null, é: 2.5, mm: 'x', ä: true, bb: 1e21 };

  it('matched by reference, with metadata and a payer', async () => {
    const c = await r.customer();
    const inv = await r.invoice(c.id, 12_000);
    const body = await sameAsRead({ customer_id: c.id, amount: 12_000, reference: `Invoice ${inv.number}`, metadata, payer: { name: '  Acme  ', account: null } });
    expect(body).toMatchObject({ status: 'applied', match: { status: 'matched', rule: 'reference' } });
    expect(Object.keys(body.metadata)).toEqual(['a', 'bb', 'mm', 'ä', 'é', 'zeta']);
  });

  it('two applications from a remittance, in the read order', async () => {
    const c = await r.customer();
    const a = await r.invoice(c.id, 3_000);
    const b = await r.invoice(c.id, 4_000);
    const body = await sameAsRead({
      customer_id: c.id,
      amount: 7_000,
      remittance: [{ invoice_number: b.number, amount: 4_000 }, { invoice_id: a.id }],
    });
    expect(body.applications).toHaveLength(2);
  });

  it('needs review, with suggestions', async () => {
    const c = await r.customer();
    await r.invoice(c.id, 5_000);
    await r.invoice(c.id, 5_000);
    const body = await sameAsRead({ customer_id: c.id, amount: 5_000, metadata: { b: 1, a: 2 } });
    expect(body.match).toMatchObject({ status: 'needs_review', rule: 'exact_amount' });
  });

  it('a short pay written off', async () => {
    const c = await r.customer();
    const inv = await r.invoice(c.id, 10_000);
    const body = await sameAsRead({ customer_id: c.id, amount: 9_950, reference: inv.number });
    expect(body.match.write_offs).toHaveLength(1);
  });

  it('partly applied, unmatched, and without a customer', async () => {
    const c = await r.customer();
    await r.invoice(c.id, 1_000);
    await sameAsRead({ customer_id: c.id, amount: 1_500, auto_match: 'oldest_first' });
    await sameAsRead({ customer_id: c.id, amount: 777 });
    await sameAsRead({ customer_id: c.id, amount: 10, auto_match: 'none', payment_date: '2026-03-01' });
    await sameAsRead({ amount: 2_500, currency: 'eur', payer: { name: 'Nobody Known', account: 'DE00 1234' }, metadata: { xb: 1, a: 'y' } });
  });
});
