import { FixedClock } from '../../../src/shared/domain/clock';
import { expectProblem, TestApp, TestTenant } from '../../support/test-app';
import { Receivables } from './support';

/** Cash-application figures per tenant: GET /cash-application/stats and the Prometheus counters. */
describe('cash-application stats', () => {
  let app: TestApp;
  let tenant: TestTenant;
  let r: Receivables;
  const clock = new FixedClock(new Date('2026-11-20T12:00:00Z'));

  beforeAll(async () => {
    app = await TestApp.start({ clock });
    tenant = await app.createTenant();
    r = new Receivables(app, tenant);
  });
  afterAll(() => app.close());

  it('counts straight-through, review and unmatched payments, by rule and customer source', async () => {
    const c = await r.customer({ name: 'Stats Corp', payer_accounts: ['NL91ABNA0417164300'] });
    const single = await r.invoice(c.id, 1_000);
    await r.invoice(c.id, 2_000);
    await r.invoice(c.id, 2_000);
    expect((await r.payment({ customer_id: c.id, amount: 1_000 })).body.match.status).toBe('matched');
    expect((await r.payment({ customer_id: c.id, amount: 2_000 })).body.match.status).toBe('needs_review');
    expect((await r.payment({ currency: 'usd', amount: 5, payer: { account: 'NL91ABNA0417164300' } })).body.match).toMatchObject({ status: 'unmatched', customer_source: 'payer_account' });
    expect((await r.payment({ currency: 'usd', amount: 7 })).body.match.status).toBe('unmatched');
    await r.payment({ customer_id: c.id, amount: 9, auto_match: 'none' });
    void single;

    const res = await app.get('/api/v1/cash-application/stats', tenant.token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      from: '2026-10-22',
      to: '2026-11-20',
      payments: 4,
      straight_through: 1,
      straight_through_rate: 0.25,
      needs_review: 1,
      unmatched: 2,
      manual: 0,
      by_rule: { exact_amount: 2, none: 2 },
      by_customer_source: { request: 2, payer_account: 1, none: 1 },
    });
    const empty = await app.get('/api/v1/cash-application/stats?from=2026-01-01&to=2026-01-31', tenant.token);
    expect(empty.body).toMatchObject({ payments: 0, straight_through_rate: 0, by_rule: {} });

    const metrics = (await app.get('/metrics')).text;
    expect(metrics).toContain(`cash_application_payments_total{tenant="${tenant.tenant_id}",status="matched",rule="exact_amount"} 1`);
    expect(metrics).toContain(`cash_application_payments_total{tenant="${tenant.tenant_id}",status="needs_review",rule="exact_amount"} 1`);
    expect(metrics).toContain(`cash_application_payments_total{tenant="${tenant.tenant_id}",status="unmatched",rule="none"} 2`);
  });

  it('refuses bad periods and needs payments:read', async () => {
    expectProblem(await app.get('/api/v1/cash-application/stats?from=2026-02-30', tenant.token), 400, 'validation_failed');
    expectProblem(await app.get('/api/v1/cash-application/stats?from=2026-11-02&to=2026-11-01', tenant.token), 400, 'validation_failed');
    expectProblem(await app.get('/api/v1/cash-application/stats?from=2024-01-01&to=2026-11-01', tenant.token), 400, 'validation_failed');
    const writer = await app.createClient(tenant.tenant_id, 'invoices:read');
    expectProblem(await app.get('/api/v1/cash-application/stats', writer.token), 403, 'forbidden');
  });
});
