import { ReminderScanJob } from '../../../src/modules/reminders/infrastructure/reminder-scan.job';
import { FixedClock } from '../../../src/shared/domain/clock';
import { TestApp, TestTenant } from '../../support/test-app';

// Small batches, so a scan runs several transactions and two instances' scans interleave.
process.env.REMINDER_SCAN_BATCH = '5';

/**
 * invoice.reminder (contract §16) with a fixed clock that the tests move, and two instances of
 * the service on one database. No scan runs on a timer here (WORKERS_ENABLED=false): scans
 * happen exactly when a test runs them, so "downtime" is simply not running any.
 * The tenants are in Los Angeles (UTC−7 from March to November 2026): at 06:59Z the UTC date is
 * already the next day, the tenant's is not.
 */
describe('invoice.reminder', () => {
  const clock = new FixedClock(new Date('2026-04-01T19:00:00Z'));
  let one: TestApp;
  let two: TestApp;

  beforeAll(async () => {
    one = await TestApp.start({ clock, env: { WORKERS_ENABLED: 'false' } });
    two = await TestApp.start({ clock, env: { WORKERS_ENABLED: 'false' }, databaseUrl: one.databaseUrl });
  });
  afterAll(async () => {
    await two?.close();
    await one?.close();
  });

  async function ok<T = any>(res: Promise<{ status: number; body: T; text: string }>, status = 200): Promise<T> {
    const r = await res;
    if (r.status !== status) throw new Error(`expected ${status}, got ${r.status}: ${r.text}`);
    return r.body;
  }

  /** A tenant in Los Angeles with reminders on, and a customer. */
  async function tenant(days: number[]): Promise<{ t: TestTenant; customerId: string }> {
    const t = await one.createTenant();
    await ok(one.patch('/api/v1/settings', { timezone: 'America/Los_Angeles', reminders: { enabled: true, days } }, t.token));
    const customer = await ok(one.post('/api/v1/customers', { name: 'Hooli', currency: 'usd' }, t.token), 201);
    return { t, customerId: customer.id };
  }

  const invoice = (t: TestTenant, customerId: string, dueDate: string, extra: Record<string, unknown> = {}) =>
    ok(
      one.post('/api/v1/invoices', { customer_id: customerId, issue_date: '2026-03-01', due_date: dueDate, line_items: [{ description: 'x', quantity: 1, unit_amount: 1000 }], ...extra }, t.token),
      201,
    );

  /** The reminder events of an invoice, oldest first. */
  const reminders = (t: TestTenant, invoiceId: string) =>
    one.query<{ data: any }>(`SELECT data FROM outbox WHERE tenant_id = $1 AND type = 'invoice.reminder' AND aggregate_id = $2 ORDER BY seq`, [t.tenant_id, invoiceId]);
  const sentDays = async (t: TestTenant, invoiceId: string) => (await reminders(t, invoiceId)).map((e) => e.data.reminder);

  /** Four scans at once, two on each instance. */
  const scanEverywhere = () => Promise.all([one, two, one, two].map((a) => a.app.get(ReminderScanJob).runOnce()));

  it("goes out on the tenant's local date, before and after the due date, not on the UTC date", async () => {
    const { t, customerId } = await tenant([-3, 1]);
    const inv = await invoice(t, customerId, '2026-04-12');

    clock.set(new Date('2026-04-09T06:59:59Z')); // 04-08 23:59:59 in Los Angeles, 04-09 in UTC
    await scanEverywhere();
    expect(await reminders(t, inv.id)).toHaveLength(0);

    clock.set(new Date('2026-04-09T07:00:00Z')); // midnight of 04-09 in Los Angeles: due date − 3
    await scanEverywhere();
    const [before] = await reminders(t, inv.id);
    expect(before.data).toEqual({
      object: expect.objectContaining({ id: inv.id, status: 'open', due_date: '2026-04-12', amount_due: 1000, overdue: false }),
      reminder: { days: -3, sequence: 1 },
    });

    clock.set(new Date('2026-04-13T06:59:59Z')); // 04-12 in Los Angeles: the due date itself
    await scanEverywhere();
    expect(await sentDays(t, inv.id)).toEqual([{ days: -3, sequence: 1 }]);

    clock.set(new Date('2026-04-13T07:00:00Z')); // 04-13 in Los Angeles: due date + 1
    await scanEverywhere();
    const events = await reminders(t, inv.id);
    expect(events.map((e) => e.data.reminder)).toEqual([{ days: -3, sequence: 1 }, { days: 1, sequence: 2 }]);
    expect(events[1].data.object).toMatchObject({ id: inv.id, overdue: true, days_past_due: 1 });
  });

  it('is sent once per invoice and day however many scans run on however many instances; the database refuses a second', async () => {
    const { t, customerId } = await tenant([0]);
    const invoices = await Promise.all(Array.from({ length: 23 }, () => invoice(t, customerId, '2026-04-20')));

    clock.set(new Date('2026-04-20T08:00:00Z'));
    for (let i = 0; i < 3; i++) await scanEverywhere();

    for (const inv of invoices) expect(await sentDays(t, inv.id)).toEqual([{ days: 0, sequence: 1 }]);
    const [{ n }] = await one.query(`SELECT count(*)::int AS n FROM invoice_reminders WHERE tenant_id = $1`, [t.tenant_id]);
    expect(n).toBe(23);

    // Not only the code: the table itself holds one row per invoice, due date and day, and one per sequence.
    const again = (days: number, sequence: number) =>
      one.query(
        `INSERT INTO invoice_reminders (tenant_id, invoice_id, due_date, days, sequence, sent_on, created_at) VALUES ($1, $2, '2026-04-20', $3, $4, '2026-04-20', now())`,
        [t.tenant_id, invoices[0].id, days, sequence],
      );
    await expect(again(0, 2)).rejects.toMatchObject({ code: '23505' });
    await expect(again(5, 1)).rejects.toMatchObject({ code: '23505' });
  });

  it('skips paid, void, uncollectible, disputed and draft invoices; partially paid ones get theirs', async () => {
    const { t, customerId } = await tenant([1]);
    const open = await invoice(t, customerId, '2026-04-20');
    const partial = await invoice(t, customerId, '2026-04-20');
    const paid = await invoice(t, customerId, '2026-04-20');
    const voided = await invoice(t, customerId, '2026-04-20');
    const uncollectible = await invoice(t, customerId, '2026-04-20');
    const disputed = await invoice(t, customerId, '2026-04-20');
    const draft = await invoice(t, customerId, '2026-04-20', { status: 'draft' });
    const pay = (inv: { id: string }, amount: number) =>
      ok(one.post('/api/v1/payments', { customer_id: customerId, amount, currency: 'usd', remittance: [{ invoice_id: inv.id, amount }] }, t.token), 201);
    await pay(partial, 400);
    await pay(paid, 1000);
    await ok(one.patch(`/api/v1/invoices/${voided.id}`, { status: 'void' }, t.token));
    await ok(one.patch(`/api/v1/invoices/${uncollectible.id}`, { status: 'uncollectible' }, t.token));
    await ok(one.patch(`/api/v1/invoices/${disputed.id}`, { dispute: { status: 'open', reason: 'damaged goods' } }, t.token));
    expect((await ok(one.get(`/api/v1/invoices/${partial.id}`, t.token))).status).toBe('partially_paid');
    expect((await ok(one.get(`/api/v1/invoices/${paid.id}`, t.token))).status).toBe('paid');

    clock.set(new Date('2026-04-21T08:00:00Z'));
    await scanEverywhere();
    expect(await sentDays(t, open.id)).toEqual([{ days: 1, sequence: 1 }]);
    const [partialReminder] = await reminders(t, partial.id);
    expect(partialReminder.data.object).toMatchObject({ status: 'partially_paid', amount_paid: 400, amount_due: 600 });
    for (const skipped of [paid, voided, uncollectible, disputed, draft]) expect(await reminders(t, skipped.id)).toHaveLength(0);

    // The dispute resolved later that day: the reminder due today still goes out on the next scan.
    await ok(one.patch(`/api/v1/invoices/${disputed.id}`, { dispute: { status: 'resolved' } }, t.token));
    clock.set(new Date('2026-04-21T23:00:00Z'));
    await scanEverywhere();
    expect(await sentDays(t, disputed.id)).toEqual([{ days: 1, sequence: 1 }]);
  });

  it('after downtime sends only the latest reminder due per invoice, once', async () => {
    const { t, customerId } = await tenant([-3, 1, 7, 14]);
    const a = await invoice(t, customerId, '2026-05-10');
    const b = await invoice(t, customerId, '2026-05-12');
    const c = await invoice(t, customerId, '2026-05-30');

    clock.set(new Date('2026-05-07T08:00:00Z'));
    await scanEverywhere();
    expect(await sentDays(t, a.id)).toEqual([{ days: -3, sequence: 1 }]);
    expect(await sentDays(t, b.id)).toEqual([]);

    // Nothing runs from 05-07 until 05-25 (Los Angeles).
    clock.set(new Date('2026-05-25T08:00:00Z'));
    await scanEverywhere();
    await scanEverywhere();
    expect(await sentDays(t, a.id)).toEqual([{ days: -3, sequence: 1 }, { days: 14, sequence: 2 }]); // 1 and 7 were missed
    expect(await sentDays(t, b.id)).toEqual([{ days: 7, sequence: 1 }]); // -3 and 1 were missed, 14 is 05-26
    expect(await sentDays(t, c.id)).toEqual([]); // its -3 is 05-27

    clock.set(new Date('2026-05-26T08:00:00Z'));
    await scanEverywhere();
    expect(await sentDays(t, b.id)).toEqual([{ days: 7, sequence: 1 }, { days: 14, sequence: 2 }]);
    expect(await sentDays(t, a.id)).toHaveLength(2);
  });

  it('follows settings changes: none while disabled, no backlog when enabled again, changed days', async () => {
    const { t, customerId } = await tenant([-3, 1, 7]);
    const inv = await invoice(t, customerId, '2026-06-10');
    const settings = (enabled: boolean, days: number[]) => ok(one.patch('/api/v1/settings', { reminders: { enabled, days } }, t.token));
    const scanOn = async (utc: string) => {
      clock.set(new Date(utc));
      await scanEverywhere();
      return sentDays(t, inv.id);
    };

    expect(await scanOn('2026-06-07T08:00:00Z')).toEqual([{ days: -3, sequence: 1 }]);
    await settings(false, [-3, 1, 7]);
    expect(await scanOn('2026-06-11T08:00:00Z')).toEqual([{ days: -3, sequence: 1 }]);

    // On again on 06-12: the day-1 reminder (06-11) fell while reminders were off and is not sent.
    await settings(true, [-3, 1, 7]);
    expect(await scanOn('2026-06-12T08:00:00Z')).toEqual([{ days: -3, sequence: 1 }]);

    // 7 is dropped, 5 and 9 are new.
    await settings(true, [-3, 5, 9]);
    expect(await scanOn('2026-06-15T08:00:00Z')).toEqual([{ days: -3, sequence: 1 }, { days: 5, sequence: 2 }]);
    expect(await scanOn('2026-06-17T08:00:00Z')).toHaveLength(2);
    expect(await scanOn('2026-06-19T08:00:00Z')).toEqual([{ days: -3, sequence: 1 }, { days: 5, sequence: 2 }, { days: 9, sequence: 3 }]);
  });
});
