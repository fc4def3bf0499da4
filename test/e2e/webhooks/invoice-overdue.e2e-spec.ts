import { InvoiceOverdueJob } from '../../../src/modules/webhooks/infrastructure/invoice-overdue.job';
import { FixedClock } from '../../../src/shared/domain/clock';
import { TestApp, TestTenant } from '../../support/test-app';

// The scans run on their timers too (every 100 ms), alongside the explicit runOnce() calls.
process.env.INVOICE_OVERDUE_SCAN_MS = '100';

describe('invoice.overdue scheduled job', () => {
  const clock = new FixedClock(new Date('2026-03-10T08:00:00Z'));
  let one: TestApp;
  let two: TestApp;
  let t: TestTenant;
  let customerId: string;

  beforeAll(async () => {
    one = await TestApp.start({ clock });
    two = await TestApp.start({ clock, databaseUrl: one.databaseUrl });
    t = await one.createTenant();
    const res = await one.post('/api/v1/customers', { name: 'Hooli', currency: 'usd' }, t.token);
    customerId = res.body.id;
  });
  afterAll(async () => {
    await two.close();
    await one.close();
  });

  const invoice = async (body: Record<string, unknown>) => {
    const res = await one.post('/api/v1/invoices', { customer_id: customerId, line_items: [{ description: 'x', quantity: 1, unit_amount: 1000 }], ...body }, t.token);
    if (res.status !== 201) throw new Error(`${res.status} ${res.text}`);
    return res.body;
  };
  const overdueEvents = async (invoiceId: string) =>
    one.query(`SELECT data FROM outbox WHERE tenant_id = $1 AND type = 'invoice.overdue' AND aggregate_id = $2 ORDER BY seq`, [t.tenant_id, invoiceId]);
  /** Several scans at once on both instances. */
  const scanEverywhere = () => Promise.all([one, two, one, two].map((a) => a.app.get(InvoiceOverdueJob).runOnce()));

  it('emits once per overdue invoice with two instances scanning at the same time', async () => {
    const late = await Promise.all(Array.from({ length: 12 }, () => invoice({ issue_date: '2026-01-01', due_date: '2026-02-01' })));
    const dueToday = await invoice({ issue_date: '2026-03-01', due_date: '2026-03-10' });
    const draft = await invoice({ status: 'draft', issue_date: '2026-01-01', due_date: '2026-02-01' });

    for (let i = 0; i < 3; i++) await scanEverywhere();
    await new Promise((r) => setTimeout(r, 300));

    for (const inv of late) {
      const events = await overdueEvents(inv.id);
      expect(events).toHaveLength(1);
      expect(events[0].data.object).toMatchObject({ id: inv.id, overdue: true, days_past_due: 37, amount_due: 1000 });
    }
    expect(await overdueEvents(dueToday.id)).toHaveLength(0);
    expect(await overdueEvents(draft.id)).toHaveLength(0);
  });

  it('fires when the due date passes (not for a paid invoice), and again after the due date is moved out and passes again', async () => {
    const inv = await invoice({ issue_date: '2026-03-01', due_date: '2026-03-12' });
    const paid = await invoice({ issue_date: '2026-03-01', due_date: '2026-03-12' });
    const pay = await one.post('/api/v1/payments', { customer_id: customerId, amount: 1000, currency: 'usd', remittance: [{ invoice_id: paid.id }] }, t.token);
    expect(pay.body.applications).toEqual([expect.objectContaining({ invoice_id: paid.id })]);
    await scanEverywhere();
    expect(await overdueEvents(inv.id)).toHaveLength(0);

    clock.set(new Date('2026-03-13T00:00:01Z'));
    await scanEverywhere();
    expect(await overdueEvents(inv.id)).toHaveLength(1);
    expect(await overdueEvents(paid.id)).toHaveLength(0);

    const moved = await one.patch(`/api/v1/invoices/${inv.id}`, { due_date: '2026-03-20' }, t.token);
    expect(moved.status).toBe(200);
    await scanEverywhere();
    expect(await overdueEvents(inv.id)).toHaveLength(1);

    clock.set(new Date('2026-03-21T12:00:00Z'));
    await scanEverywhere();
    const events = await overdueEvents(inv.id);
    expect(events.map((e) => e.data.object.due_date)).toEqual(['2026-03-12', '2026-03-20']);
  });
});
