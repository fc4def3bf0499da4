import { TenantSettingsCache } from '../../../src/modules/settings/infrastructure/tenant-settings.cache';
import { InvoiceOverdueJob } from '../../../src/modules/webhooks/infrastructure/invoice-overdue.job';
import { FixedClock } from '../../../src/shared/domain/clock';
import { TestApp, TestTenant } from '../../support/test-app';
import { Receivables } from '../payments/support';

/**
 * Business dates are the tenant's local date (contract §13). The clock stands at 22:30 on
 * June 30 in Los Angeles, which is already 05:30 on July 1 in UTC: everything a Los Angeles
 * tenant sees is as of June 30, while a tenant on UTC is on July 1.
 */
describe('tenant time zone', () => {
  const clock = new FixedClock(new Date('2026-07-01T05:30:00Z'));
  let app: TestApp;
  let la: TestTenant;
  let utc: TestTenant;
  let laR: Receivables;
  let utcR: Receivables;

  beforeAll(async () => {
    app = await TestApp.start({ clock });
    la = await app.createTenant('Los Angeles Supply');
    utc = await app.createTenant('Greenwich Goods');
    expect((await app.patch('/api/v1/settings', { timezone: 'America/Los_Angeles' }, la.token)).status).toBe(200);
    laR = new Receivables(app, la);
    utcR = new Receivables(app, utc);
  });
  afterAll(() => app.close());

  it('dates a new invoice and a new payment June 30, and counts payment terms from there', async () => {
    const c = await laR.customer({ payment_terms_days: 30 });
    const invoice = await laR.invoice(c.id, 1_000);
    expect(invoice).toMatchObject({ issue_date: '2026-06-30', due_date: '2026-07-30' });
    const payment = await laR.payment({ customer_id: c.id, amount: 100, auto_match: 'none' });
    expect(payment.body.payment_date).toBe('2026-06-30');

    const elsewhere = await utcR.invoice((await utcR.customer({ payment_terms_days: 30 })).id, 1_000);
    expect(elsewhere).toMatchObject({ issue_date: '2026-07-01', due_date: '2026-07-31' });
  });

  it('is not overdue on its due date in Los Angeles, already is in UTC', async () => {
    const c = await laR.customer();
    const dueToday = await laR.invoice(c.id, 1_000, { issue_date: '2026-06-01', due_date: '2026-06-30' });
    const dueYesterday = await laR.invoice(c.id, 500, { issue_date: '2026-06-01', due_date: '2026-06-29' });
    expect(dueToday).toMatchObject({ overdue: false, days_past_due: 0 });
    expect(await laR.getInvoice(dueYesterday.id)).toMatchObject({ overdue: true, days_past_due: 1 });
    const overdueList = await app.get(`/api/v1/invoices?customer_id=${c.id}&overdue=true`, la.token);
    expect(overdueList.body.data.map((i: { id: string }) => i.id)).toEqual([dueYesterday.id]);

    const customer = (await app.get(`/api/v1/customers/${c.id}`, la.token)).body;
    expect(customer).toMatchObject({ overdue_amount: 500, aging: { current: 1_000, days_1_30: 500 } });
    expect(customer.ar_summary).toMatchObject({ overdue_amount: 500, overdue_invoice_count: 1 });
    const listed = await app.get(`/api/v1/customers?overdue=true`, la.token);
    expect(listed.body.data.find((x: { id: string }) => x.id === c.id)).toMatchObject({ overdue_amount: 500, aging: { current: 1_000, days_1_30: 500 } });

    const u = await utcR.customer();
    const utcDueJune30 = await utcR.invoice(u.id, 1_000, { issue_date: '2026-06-01', due_date: '2026-06-30' });
    expect(utcDueJune30).toMatchObject({ overdue: true, days_past_due: 1 });
    expect((await app.get(`/api/v1/customers/${u.id}`, utc.token)).body).toMatchObject({ overdue_amount: 1_000, aging: { current: 0, days_1_30: 1_000 } });
  });

  it('dates what happens today (a void) June 30 and defaults the statement to June', async () => {
    const c = await laR.customer();
    const invoice = await laR.invoice(c.id, 2_000, { issue_date: '2026-06-10' });
    expect((await app.patch(`/api/v1/invoices/${invoice.id}`, { status: 'void' }, la.token)).status).toBe(200);
    const statement = (await app.get(`/api/v1/customers/${c.id}/statement`, la.token)).body;
    expect(statement).toMatchObject({ from: '2026-06-01', to: '2026-06-30', closing_balance: 0 });
    expect(statement.lines.map((l: { date: string; type: string }) => [l.date, l.type])).toEqual([
      ['2026-06-10', 'invoice'],
      ['2026-06-30', 'void'],
    ]);
    const utcStatement = (await app.get(`/api/v1/customers/${(await utcR.customer()).id}/statement`, utc.token)).body;
    expect(utcStatement).toMatchObject({ from: '2026-07-01', to: '2026-07-01' });
  });

  it('announces invoice.overdue when the due date has passed in the tenant’s time zone', async () => {
    const overdueEvents = (tenantId: string, invoiceId: string) =>
      app.query(`SELECT data FROM outbox WHERE tenant_id = $1 AND type = 'invoice.overdue' AND aggregate_id = $2`, [tenantId, invoiceId]);
    const job = app.app.get(InvoiceOverdueJob);
    const laInvoice = await laR.invoice((await laR.customer()).id, 1_000, { issue_date: '2026-06-01', due_date: '2026-06-30' });
    const laLate = await laR.invoice((await laR.customer()).id, 1_000, { issue_date: '2026-06-01', due_date: '2026-06-29' });
    const utcInvoice = await utcR.invoice((await utcR.customer()).id, 1_000, { issue_date: '2026-06-01', due_date: '2026-06-30' });

    await job.runOnce();
    expect(await overdueEvents(la.tenant_id, laInvoice.id)).toEqual([]);
    expect((await overdueEvents(la.tenant_id, laLate.id)).map((e) => e.data.object)).toEqual([expect.objectContaining({ overdue: true, days_past_due: 1 })]);
    expect((await overdueEvents(utc.tenant_id, utcInvoice.id)).map((e) => e.data.object)).toEqual([expect.objectContaining({ overdue: true, days_past_due: 1 })]);

    clock.set(new Date('2026-07-01T07:30:00Z')); // 00:30 on July 1 in Los Angeles
    try {
      await job.runOnce();
      expect((await overdueEvents(la.tenant_id, laInvoice.id)).map((e) => e.data.object)).toEqual([
        expect.objectContaining({ id: laInvoice.id, overdue: true, days_past_due: 1 }),
      ]);
    } finally {
      clock.set(new Date('2026-07-01T05:30:00Z'));
    }
  });

  it('recomputes the stored overdue figures when the time zone changes', async () => {
    const t = await app.createTenant('Moving West');
    const r = new Receivables(app, t);
    const c = await r.customer();
    await r.invoice(c.id, 700, { issue_date: '2026-06-01', due_date: '2026-06-30' });
    const overdueCustomers = async () => (await app.get('/api/v1/customers?overdue=true', t.token)).body.data.map((x: { id: string }) => x.id);
    expect(await overdueCustomers()).toEqual([c.id]); // on UTC it is July 1
    expect((await app.patch('/api/v1/settings', { timezone: 'America/Los_Angeles' }, t.token)).status).toBe(200);
    expect(await overdueCustomers()).toEqual([]);
    expect((await app.get(`/api/v1/customers?sort=-overdue_amount`, t.token)).body.data[0]).toMatchObject({ id: c.id, overdue_amount: 0 });
  });

  it('is followed at once by the instance that made the change, before its own notification arrives', async () => {
    const tenant = await app.createTenant('Late Notifications');
    const r = new Receivables(app, tenant);
    const c = await r.customer();
    // Fill this instance's cache with UTC, then let no notification reach it: only the
    // instance's own commit can tell it that the zone changed.
    expect(await r.invoice(c.id, 100)).toMatchObject({ issue_date: '2026-07-01' });
    const cache = app.app.get(TenantSettingsCache) as unknown as { listener: { options: { onNotify: () => void } } };
    const onNotify = cache.listener.options.onNotify;
    cache.listener.options.onNotify = () => undefined;
    try {
      expect((await app.patch('/api/v1/settings', { timezone: 'America/Los_Angeles' }, tenant.token)).status).toBe(200);
      expect(await r.invoice(c.id, 100)).toMatchObject({ issue_date: '2026-06-30' });
    } finally {
      cache.listener.options.onNotify = onNotify;
    }
  });

  it('reaches every instance of the service: another instance follows a change at once', async () => {
    const two = await TestApp.start({ clock, databaseUrl: app.databaseUrl });
    try {
      const t = await app.createTenant('Two Instances');
      const c = (await new Receivables(two, t).customer()).id;
      const to = async () => (await two.get(`/api/v1/customers/${c}/statement`, t.token)).body.to;
      expect(await to()).toBe('2026-07-01'); // instance two now holds the tenant's settings (UTC)
      expect((await app.patch('/api/v1/settings', { timezone: 'America/Los_Angeles' }, t.token)).status).toBe(200);
      // The change is announced at commit; wait for instance two to hear it, not for a fixed time.
      const deadline = Date.now() + 10_000;
      while ((await to()) !== '2026-06-30' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(await to()).toBe('2026-06-30');
    } finally {
      await two.close();
    }
  });

});
