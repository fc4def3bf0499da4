import { EVENT_TYPES } from '../../../src/modules/webhooks/domain/event-types';
import { TestApp, TestTenant } from '../../support/test-app';
import { ReceivedWebhook, WebhookReceiver } from '../../support/webhook-receiver';
import { subscribe } from './support';

process.env.WEBHOOK_RELAY_POLL_MS = '300';
process.env.INVOICE_OVERDUE_SCAN_MS = '200';
process.env.REMINDER_SCAN_MS = '200';

/**
 * Every public event type, each caused by a real API call (invoice.overdue and invoice.reminder
 * by the scheduled scans), reaches a subscriber signed so that the standardwebhooks library verifies it.
 */
describe('every event type arrives signed', () => {
  let app: TestApp;
  let receiver: WebhookReceiver;
  let t: TestTenant;
  let secret: string;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    app = await TestApp.start();
    t = await app.createTenant();
    ({ secret } = await subscribe(app, t, receiver.url('/all'), ['*']));
  });
  afterAll(async () => {
    await app.close();
    await receiver.close();
  });

  async function ok<T = any>(res: Promise<{ status: number; body: T; text: string }>, status: number): Promise<T> {
    const r = await res;
    if (r.status !== status) throw new Error(`expected ${status}, got ${r.status}: ${r.text}`);
    return r.body;
  }

  const received = (type: string, objectId: string) =>
    receiver.waitFor((all) => all.some((r) => r.event.type === type && r.event.data.object.id === objectId), 20_000, `${type} for ${objectId}`)
      .then((all) => all.filter((r) => r.event.type === type && r.event.data.object.id === objectId));

  function verified(requests: ReceivedWebhook[]): ReceivedWebhook {
    expect(requests).toHaveLength(1);
    const [r] = requests;
    expect(WebhookReceiver.verify(r, secret)).toEqual(r.event);
    expect(r.headers['webhook-id']).toBe(r.event.id);
    expect(r.event).toEqual({ id: expect.stringMatching(/^evt_/), type: expect.any(String), created_at: expect.any(String), data: expect.any(Object) });
    return r;
  }

  const line = (amount: number) => [{ description: 'Consulting', quantity: 1, unit_amount: amount }];

  it('invoice and dispute events', async () => {
    const customer = await ok(app.post('/api/v1/customers', { name: 'Globex', email: 'ap@globex.example', currency: 'usd' }, t.token), 201);
    const invoice = await ok(app.post('/api/v1/invoices', { customer_id: customer.id, currency: 'usd', line_items: line(10_000) }, t.token), 201);

    verified(await received('invoice.created', invoice.id));
    const finalized = verified(await received('invoice.finalized', invoice.id));
    expect(finalized.event.data.object).toMatchObject({ id: invoice.id, status: 'open', total: 10_000, currency: 'usd' });

    await ok(app.patch(`/api/v1/invoices/${invoice.id}`, { memo: 'Thanks!' }, t.token), 200);
    const updated = await received('invoice.updated', invoice.id);
    const memo = verified(updated.filter((r) => r.event.data.object.memo === 'Thanks!'));
    expect(memo.event.data.previous_attributes).toMatchObject({ memo: null });

    await ok(app.patch(`/api/v1/invoices/${invoice.id}`, { dispute: { status: 'open', reason: 'damaged goods' } }, t.token), 200);
    const opened = verified(await received('dispute.opened', invoice.id));
    expect(opened.event.data.object.dispute).toMatchObject({ status: 'open', reason: 'damaged goods' });
    await ok(app.patch(`/api/v1/invoices/${invoice.id}`, { dispute: { status: 'resolved' } }, t.token), 200);
    verified(await received('dispute.resolved', invoice.id));

    const draft = await ok(app.post('/api/v1/invoices', { customer_id: customer.id, status: 'draft', line_items: line(500) }, t.token), 201);
    await ok(app.patch(`/api/v1/invoices/${draft.id}`, { status: 'void' }, t.token), 200);
    expect(verified(await received('invoice.voided', draft.id)).event.data.object.status).toBe('void');

    const bad = await ok(app.post('/api/v1/invoices', { customer_id: customer.id, line_items: line(700) }, t.token), 201);
    await ok(app.patch(`/api/v1/invoices/${bad.id}`, { status: 'uncollectible' }, t.token), 200);
    expect(verified(await received('invoice.marked_uncollectible', bad.id)).event.data.object.status).toBe('uncollectible');

    const small = await ok(app.post('/api/v1/invoices', { customer_id: customer.id, line_items: line(900) }, t.token), 201);
    await ok(app.post(`/api/v1/invoices/${small.id}/write-off`, { amount: 150, reason: 'small_balance' }, t.token), 200);
    const writtenOff = verified(await received('invoice.written_off', small.id));
    expect(writtenOff.event.data).toMatchObject({
      object: { amount_written_off: 150, amount_due: 750 },
      write_off: { id: expect.stringMatching(/^wo_/), amount: 150, reason: 'small_balance' },
    });
  });

  it('invoice.overdue, once, from the scheduled scan', async () => {
    const customer = await ok(app.post('/api/v1/customers', { name: 'Initech', currency: 'usd' }, t.token), 201);
    const late = await ok(
      app.post('/api/v1/invoices', { customer_id: customer.id, issue_date: '2020-01-01', due_date: '2020-01-31', line_items: line(4_200) }, t.token),
      201,
    );
    const overdue = verified(await received('invoice.overdue', late.id));
    expect(overdue.event.data.object).toMatchObject({ id: late.id, overdue: true, amount_due: 4_200, due_date: '2020-01-31' });
    expect(overdue.event.data.object.days_past_due).toBeGreaterThan(2000);
    // Later scans do not repeat it.
    await new Promise((r) => setTimeout(r, 700));
    expect(receiver.received.filter((r) => r.event.type === 'invoice.overdue' && r.event.data.object.id === late.id)).toHaveLength(1);
  });

  it('invoice.reminder, once, from the scheduled scan', async () => {
    await ok(app.patch('/api/v1/settings', { reminders: { enabled: true, days: [0, 1] } }, t.token), 200);
    const customer = await ok(app.post('/api/v1/customers', { name: 'Vandelay', currency: 'usd' }, t.token), 201);
    const today = new Date().toISOString().slice(0, 10);
    const due = await ok(app.post('/api/v1/invoices', { customer_id: customer.id, issue_date: today, due_date: today, line_items: line(900) }, t.token), 201);
    const reminder = verified(await received('invoice.reminder', due.id));
    expect(reminder.event.data.object).toMatchObject({ id: due.id, amount_due: 900, due_date: today });
    // Day 0 (or day 1, should UTC midnight pass in between): the tenant's first reminder of this invoice.
    expect(reminder.event.data.reminder).toEqual({ days: expect.any(Number), sequence: 1 });
    expect([0, 1]).toContain(reminder.event.data.reminder?.days);
    await new Promise((r) => setTimeout(r, 700));
    expect(receiver.received.filter((r) => r.event.type === 'invoice.reminder' && r.event.data.object.id === due.id)).toHaveLength(1);
  });

  it('payment events and invoice.paid, including those raised by automatic matching', async () => {
    const customer = await ok(app.post('/api/v1/customers', { name: 'Umbrella', currency: 'usd' }, t.token), 201);
    const invoice = await ok(app.post('/api/v1/invoices', { customer_id: customer.id, line_items: line(12_550) }, t.token), 201);
    const payment = await ok(
      app.post('/api/v1/payments', { customer_id: customer.id, amount: 12_550, currency: 'usd', method: 'ach', payment_date: '2026-01-15' }, t.token),
      201,
    );
    expect(payment.applications).toHaveLength(1);

    expect(verified(await received('payment.created', payment.id)).event.data.object).toMatchObject({ id: payment.id, amount: 12_550 });
    expect(verified(await received('payment.matched', payment.id)).event.data.object).toMatchObject({ id: payment.id, status: 'applied' });
    expect(verified(await received('invoice.paid', invoice.id)).event.data.object).toMatchObject({ status: 'paid', amount_due: 0 });

    const reversed = await app.delete(`/api/v1/payments/${payment.id}/applications/${payment.applications[0].id}`, t.token);
    expect(reversed.status).toBe(200);
    expect(verified(await received('payment.application_reversed', payment.id)).event.data.object).toMatchObject({ id: payment.id, status: 'unapplied' });

    // Two open invoices of the same amount: automatic matching stops for a person.
    for (let i = 0; i < 2; i++) await ok(app.post('/api/v1/invoices', { customer_id: customer.id, line_items: line(3_000) }, t.token), 201);
    const ambiguous = await ok(app.post('/api/v1/payments', { customer_id: customer.id, amount: 3_000, currency: 'usd' }, t.token), 201);
    expect(ambiguous.match.status).toBe('needs_review');
    expect(verified(await received('payment.needs_review', ambiguous.id)).event.data.object).toMatchObject({ id: ambiguous.id, match: { status: 'needs_review' } });
  });

  it('bank_statement.completed, when an imported bank file is done', async () => {
    const imported = await ok(
      app.request('POST', '/api/v1/bank-statements?format=csv', {
        token: t.token,
        rawBody: 'date,amount,currency,reference\n2026-11-01,12.50,USD,no invoice named\n',
        headers: { 'content-type': 'text/csv' },
      }),
      202,
    );
    const completed = verified(await received('bank_statement.completed', imported.id));
    expect(completed.event.data.object).toMatchObject({ id: imported.id, status: 'completed', payments_created: 1, entries_total: 1 });
  });

  it('credit note events', async () => {
    const customer = await ok(app.post('/api/v1/customers', { name: 'Soylent', currency: 'usd' }, t.token), 201);
    const invoice = await ok(app.post('/api/v1/invoices', { customer_id: customer.id, line_items: line(5_000) }, t.token), 201);
    const note = await ok(app.post('/api/v1/credit-notes', { customer_id: customer.id, amount: 1_000, reason: 'discount' }, t.token), 201);
    expect(verified(await received('credit_note.created', note.id)).event.data.object).toMatchObject({ id: note.id, status: 'open', amount: 1_000 });
    await ok(app.post(`/api/v1/credit-notes/${note.id}/apply`, { applications: [{ invoice_id: invoice.id, amount: 400 }] }, t.token), 200);
    const applied = verified(await received('credit_note.applied', note.id));
    expect(applied.event.data).toMatchObject({ object: { status: 'partially_applied', amount_remaining: 600 }, previous_attributes: { status: 'open', amount_remaining: 1_000 } });
    const unused = await ok(app.post('/api/v1/credit-notes', { customer_id: customer.id, amount: 300, reason: 'duplicate' }, t.token), 201);
    await ok(app.post(`/api/v1/credit-notes/${unused.id}/void`, {}, t.token), 200);
    expect(verified(await received('credit_note.voided', unused.id)).event.data.object).toMatchObject({ id: unused.id, status: 'void' });
    const refund = await ok(app.post(`/api/v1/credit-notes/${note.id}/refunds`, { amount: 100 }, t.token), 201);
    expect(verified(await received('credit_note.refunded', note.id)).event.data).toMatchObject({ object: { amount_refunded: 100, amount_remaining: 500 }, refund });
  });

  it('payment.refunded', async () => {
    const customer = await ok(app.post('/api/v1/customers', { name: 'Cyberdyne', currency: 'usd' }, t.token), 201);
    const payment = await ok(app.post('/api/v1/payments', { customer_id: customer.id, amount: 2_000, auto_match: 'none' }, t.token), 201);
    const refund = await ok(app.post(`/api/v1/payments/${payment.id}/refunds`, { amount: 500, reason: 'Overpaid' }, t.token), 201);
    const refunded = verified(await received('payment.refunded', payment.id));
    expect(refunded.event.data).toMatchObject({ object: { amount_refunded: 500, amount_unapplied: 1_500 }, previous_attributes: { amount_refunded: 0 }, refund });
  });

  it('covered every type', () => {
    expect(new Set(receiver.received.map((r) => r.event.type))).toEqual(new Set(EVENT_TYPES));
  });
});
