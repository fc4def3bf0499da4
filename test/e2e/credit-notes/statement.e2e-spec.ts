import { FixedClock } from '../../../src/shared/domain/clock';
import { pdfPages } from '../../support/pdf-text';
import { TestApp, TestTenant } from '../../support/test-app';
import { Credits } from './support';

/**
 * Statements with credit notes, refunds and write-offs in the period (contract §9, §15): for every
 * `to`, opening + debits − credits = closing = the balance as of `to`, and the aging as of `to`
 * less the unapplied credit is the closing balance too. The customer list and detail agree.
 */
describe('statements with credit notes, refunds and write-offs', () => {
  const clock = new FixedClock(new Date('2026-06-01T12:00:00Z'));
  let app: TestApp;
  let t: TestTenant;
  let r: Credits;
  let customer: { id: string };
  const at = (day: string) => clock.set(new Date(`${day}T12:00:00Z`));
  const sum = (aging: Record<string, number>) => Object.values(aging).reduce((s, v) => s + v, 0);

  beforeAll(async () => {
    app = await TestApp.start({ clock, env: { WORKERS_ENABLED: 'false' } });
    t = await app.createTenant();
    r = new Credits(app, t);
    const ok = async (res: Promise<{ status: number; text: string }>) => {
      const x = await res;
      if (x.status >= 300) throw new Error(`${x.status} ${x.text}`);
    };

    // A month of history, each step on its own day (the tenant's today is the clock's date).
    customer = await r.customer({ name: 'Łódź Trading' });
    const a = await r.invoice(customer.id, 10_000, { issue_date: '2026-06-01', due_date: '2026-06-15' });
    at('2026-06-05');
    await ok(r.payment({ customer_id: customer.id, amount: 3_000, reference: a.number, payment_date: '2026-06-05' }));
    at('2026-06-08');
    await r.creditNote(customer.id, { invoice_id: a.id, amount: 2_000, reason: 'product_unsatisfactory' });
    at('2026-06-10');
    const p2 = (await r.payment({ customer_id: customer.id, amount: 4_000, auto_match: 'none', payment_date: '2026-06-10' })).body;
    at('2026-06-12');
    await ok(app.post(`/api/v1/payments/${p2.id}/refunds`, { amount: 1_000 }, t.token));
    at('2026-06-15');
    await ok(r.writeOff(a.id, { amount: 500, reason: 'small_balance' }));
    at('2026-06-20');
    const b = await r.invoice(customer.id, 5_000, { issue_date: '2026-06-20', due_date: '2026-07-20' });
    at('2026-06-22');
    const cn2 = await r.creditNote(customer.id, { amount: 1_500, reason: 'discount' });
    at('2026-06-25');
    await ok(app.post(`/api/v1/payments/${p2.id}/match`, { applications: [{ invoice_id: b.id }] }, t.token));
    at('2026-06-26');
    await ok(r.applyCreditNote(cn2.id, [{ invoice_id: a.id, amount: 1_000 }]));
    at('2026-06-27');
    await ok(app.post(`/api/v1/credit-notes/${cn2.id}/refunds`, { amount: 200 }, t.token));
    at('2026-06-28');
    const cn3 = await r.creditNote(customer.id, { amount: 700, reason: 'duplicate' });
    at('2026-06-29');
    await ok(r.voidCreditNote(cn3.id));
    at('2026-06-30');
    const c = await r.invoice(customer.id, 800, { issue_date: '2026-06-30', due_date: '2026-06-30' });
    await ok(r.writeOff(c.id, { reason: 'bad_debt' }));
  });
  afterAll(() => app.close());

  const statement = async (from: string, to: string) => (await app.get(`/api/v1/customers/${customer.id}/statement?from=${from}&to=${to}`, t.token)).body;

  it('holds opening + debits − credits = closing = balance as of to, and aging − unapplied credit = closing, for every day', async () => {
    const days = Array.from({ length: 30 }, (_, i) => `2026-06-${String(i + 1).padStart(2, '0')}`);
    const whole = await statement('2026-01-01', '2026-06-30');
    for (const to of days) {
      const s = await statement('2026-06-10', to < '2026-06-10' ? '2026-06-10' : to);
      const check = to < '2026-06-10' ? await statement('2026-06-01', to) : s;
      const ledgerAsOf = whole.lines.filter((l: any) => l.date <= to).reduce((b: number, l: any) => b + l.debit - l.credit, 0);
      expect({ to, closing: check.opening_balance + check.total_debits - check.total_credits }).toEqual({ to, closing: check.closing_balance });
      expect({ to, closing: check.closing_balance }).toEqual({ to, closing: ledgerAsOf });
      expect({ to, aged: sum(check.aging) - check.unapplied_credit }).toEqual({ to, aged: check.closing_balance });
    }
    expect(whole.closing_balance).toBe((await r.getCustomer(customer.id)).balance);
  });

  it('says, as of the 15th, what was owed then: the invoice less what paid, credited and wrote it off by then; the refunded payment\'s rest as credit', async () => {
    const s = await statement('2026-06-01', '2026-06-15');
    expect(s.lines.map((l: any) => [l.date, l.type, l.debit, l.credit])).toEqual([
      ['2026-06-01', 'invoice', 10_000, 0],
      ['2026-06-05', 'payment', 0, 3_000],
      ['2026-06-08', 'credit_note', 0, 2_000],
      ['2026-06-10', 'payment', 0, 4_000],
      ['2026-06-12', 'refund', 1_000, 0],
      ['2026-06-15', 'write_off', 0, 500],
    ]);
    expect(s).toMatchObject({ closing_balance: 1_500, unapplied_credit: 3_000, aging: { current: 4_500, days_1_30: 0 } });
  });

  it('names each document: CN numbers, refund ids, invoice numbers; the void of a credit note is a debit', async () => {
    const s = await statement('2026-06-20', '2026-06-30');
    const refs = s.lines.map((l: any) => [l.type, l.reference, l.debit > 0 ? 'debit' : 'credit']);
    expect(refs).toEqual([
      ['invoice', expect.stringMatching(/^INV-/), 'debit'],
      ['credit_note', expect.stringMatching(/^CN-/), 'credit'],
      ['refund', expect.stringMatching(/^ref_/), 'debit'],
      ['credit_note', expect.stringMatching(/^CN-/), 'credit'],
      ['void', expect.stringMatching(/^CN-/), 'debit'],
      ['invoice', expect.stringMatching(/^INV-/), 'debit'],
      ['write_off', expect.stringMatching(/^INV-/), 'credit'],
    ]);
    expect(s).toMatchObject({ closing_balance: 1_500 + 5_000 - 1_500 + 200, unapplied_credit: 300 });
  });

  it('prints the same lines in CSV and PDF', async () => {
    const csv = await app.get(`/api/v1/customers/${customer.id}/statement?from=2026-06-01&to=2026-06-30`, t.token, { accept: 'text/csv' });
    expect(csv.status).toBe(200);
    for (const type of ['credit_note', 'refund', 'write_off', 'void']) expect(csv.text).toContain(`,${type},`);
    const res = await fetch(`${app.baseUrl}/api/v1/customers/${customer.id}/statement?from=2026-06-01&to=2026-06-30`, { headers: { authorization: `Bearer ${t.token}`, accept: 'application/pdf' } });
    expect(res.status).toBe(200);
    const text = (await pdfPages(Buffer.from(await res.arrayBuffer()))).join('\n');
    for (const label of ['Credit', 'Refund', 'Write-off', 'Void']) expect(text).toContain(label);
  });

  it('lists the customer with the same balance and an aging that adds up to its open amount due', async () => {
    const list = (await app.get('/api/v1/customers?q=Trading', t.token)).body.data;
    const detail = await r.getCustomer(customer.id);
    expect(list).toHaveLength(1);
    expect(list[0].balance).toBe(detail.balance);
    expect(sum(list[0].aging)).toBe(3_500 + 2_000); // A: 10,000 − 3,000 − 3,000 − 500; B: 5,000 − 3,000
    expect(detail.ar_summary).toMatchObject({ total_credited: 2_000 + 1_500, total_refunded: 1_000 + 200, total_written_off: 500 + 800, unapplied_payments: 0 });
    expect(detail.balance).toBe(3_500 + 2_000 - 300); // open amount due less the credit left on CN2
  });
});
