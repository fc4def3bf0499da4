import fc from 'fast-check';
import { addDays, FixedClock } from '../../../src/shared/domain/clock';
import { expectProblem, TestApp, TestTenant } from '../../support/test-app';
import { pdfPages } from '../../support/pdf-text';
import { Receivables } from '../payments/support';

/** GET /customers/:id/statement (contract §9) as JSON, PDF and CSV. */
describe('customer statement', () => {
  let app: TestApp;
  let tenant: TestTenant;
  let r: Receivables;
  const TODAY = '2026-06-15';
  const clock = new FixedClock(new Date(`${TODAY}T12:00:00Z`));

  beforeAll(async () => {
    app = await TestApp.start({ clock });
    tenant = await app.createTenant('Northwind Supplies');
    r = new Receivables(app, tenant);
  });
  afterAll(() => app.close());

  const statement = (customerId: string, query = '', accept?: string) =>
    app.get(`/api/v1/customers/${customerId}/statement${query}`, tenant.token, accept ? { accept } : undefined);

  const pdf = async (customerId: string, query = '') => {
    const res = await fetch(`${app.baseUrl}/api/v1/customers/${customerId}/statement${query}`, {
      headers: { authorization: `Bearer ${tenant.token}`, accept: 'application/pdf' },
    });
    return { status: res.status, type: res.headers.get('content-type'), body: Buffer.from(await res.arrayBuffer()) };
  };

  describe('a known history', () => {
    let customerId: string;
    let inv: any[];

    beforeAll(async () => {
      customerId = (await r.customer({ name: 'Acme Ltd', email: 'ap@acme.example', billing_address: { line1: '1 Main St', city: 'Springfield', country: 'US' } })).id;
      inv = [
        await r.invoice(customerId, 10_000, { issue_date: '2026-04-20', due_date: '2026-05-20' }),
        await r.invoice(customerId, 5_000, { issue_date: '2026-05-03', due_date: '2026-05-10' }),
        await r.invoice(customerId, 2_500, { issue_date: '2026-05-20', due_date: '2026-07-01' }),
      ];
      await r.payment({ customer_id: customerId, amount: 4_000, payment_date: '2026-05-12', reference: 'WIRE 123', remittance: [{ invoice_id: inv[0].id }] });
      await r.payment({ customer_id: customerId, amount: 600, payment_date: '2026-06-02', auto_match: 'none' });
    });

    it('opens with the balance before `from`, runs a balance per line and closes with the balance as of `to`', async () => {
      const res = await statement(customerId, '?from=2026-05-01&to=2026-05-31');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        customer: { id: customerId, name: 'Acme Ltd', email: 'ap@acme.example', external_id: null, billing_address: expect.objectContaining({ line1: '1 Main St' }) },
        currency: 'usd',
        from: '2026-05-01',
        to: '2026-05-31',
        opening_balance: 10_000,
        lines: [
          { date: '2026-05-03', type: 'invoice', reference: inv[1].number, description: expect.any(String), debit: 5_000, credit: 0, balance: 15_000 },
          { date: '2026-05-12', type: 'payment', reference: 'WIRE 123', description: expect.any(String), debit: 0, credit: 4_000, balance: 11_000 },
          { date: '2026-05-20', type: 'invoice', reference: inv[2].number, description: expect.any(String), debit: 2_500, credit: 0, balance: 13_500 },
        ],
        total_debits: 7_500,
        total_credits: 4_000,
        closing_balance: 13_500,
        // As of 05-31: inv0 (6,000 due 05-20) is 11 days late, inv1 (5,000 due 05-10) 21 days, inv2 not yet due.
        aging: { current: 2_500, days_1_30: 11_000, days_31_60: 0, days_61_90: 0, days_over_90: 0 },
        unapplied_credit: 0, // the 600 arrived on 06-02
        generated_at: clock.now().toISOString(),
      });
    });

    it('defaults to the first of this month until today and closes with the customer’s balance', async () => {
      const res = await statement(customerId);
      expect(res.body).toMatchObject({ from: '2026-06-01', to: TODAY, opening_balance: 13_500, closing_balance: 12_900 });
      expect(res.body.lines).toEqual([expect.objectContaining({ date: '2026-06-02', type: 'payment', credit: 600, balance: 12_900 })]);
      expect((await app.get(`/api/v1/customers/${customerId}`, tenant.token)).body.balance).toBe(12_900);
    });

    it('renders a printable PDF with the issuer, the customer, the period, its lines and what was owed at the end', async () => {
      const res = await pdf(customerId, '?from=2026-05-01&to=2026-05-31');
      expect(res.status).toBe(200);
      expect(res.type).toBe('application/pdf');
      expect(res.body.subarray(0, 5).toString()).toBe('%PDF-');
      const [page, ...more] = await pdfPages(res.body);
      expect(more).toEqual([]);
      for (const text of ['Northwind Supplies', 'Acme Ltd', '1 Main St', inv[1].number, inv[2].number, 'WIRE 123', '135.00', '40.00', 'Page 1 of 1', '2026-05-01 to 2026-05-31', 'Aging as of 2026-05-31', 'Unapplied credit']) {
        expect(page).toContain(text);
      }
    });

    it('returns the lines as CSV: an opening-balance row, then each line, amounts in minor and major units', async () => {
      const res = await statement(customerId, '?from=2026-05-01&to=2026-05-31', 'text/csv');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
      expect(res.headers.get('content-disposition')).toContain(`statement-${customerId}-2026-05-01-2026-05-31.csv`);
      const rows = res.text.trim().split('\r\n').map((row) => row.split(','));
      expect(rows[0].join(',')).toBe('date,type,reference,description,debit,credit,balance,currency,debit_major,credit_major,balance_major');
      expect(rows.slice(1).map((r) => [r[0], r[1], r[2], ...r.slice(4)])).toEqual([
        ['2026-05-01', 'opening_balance', '', '', '', '10000', 'usd', '', '', '100.00'],
        ['2026-05-03', 'invoice', inv[1].number, '5000', '0', '15000', 'usd', '50.00', '0.00', '150.00'],
        ['2026-05-12', 'payment', 'WIRE 123', '0', '4000', '11000', 'usd', '0.00', '40.00', '110.00'],
        ['2026-05-20', 'invoice', inv[2].number, '2500', '0', '13500', 'usd', '25.00', '0.00', '135.00'],
      ]);
    });

    it('answers JSON for Accept: application/json and */*', async () => {
      for (const accept of ['application/json', '*/*', 'text/csv;q=0.1, application/json']) {
        const res = await statement(customerId, '', accept);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      }
    });

    it.each([
      ['from after to', '?from=2026-05-02&to=2026-05-01'],
      ['a bad date', '?from=2026-02-30'],
      ['an unknown parameter', '?format=pdf'],
    ])('400 for %s', async (_name, query) => {
      expectProblem(await statement(customerId, query), 400, 'validation_failed');
    });

    it('404 for an unknown, malformed or other tenant’s customer', async () => {
      expectProblem(await statement('cus_01jc9x7m3ef0ab6yr2t0n4q8zd'), 404, 'not_found');
      expectProblem(await statement('nope'), 404, 'not_found');
      const other = await app.createTenant('Other');
      expectProblem(await app.get(`/api/v1/customers/${customerId}/statement`, other.token), 404, 'not_found');
    });
  });

  it('prints a long statement over several pages with the table on each', async () => {
    const c = await r.customer({ name: 'Busy Buyer' });
    for (let i = 0; i < 70; i++) await r.invoice(c.id, 100 + i, { issue_date: addDays('2026-03-01', i) });
    const res = await pdf(c.id, '?from=2026-01-01&to=2026-06-15');
    const pages = await pdfPages(res.body);
    expect(pages.length).toBeGreaterThanOrEqual(2);
    pages.forEach((text, i) => {
      expect(text).toContain(`Page ${i + 1} of ${pages.length}`);
      expect(text).toContain('Balance');
    });
    const numbers = (await statement(c.id, '?from=2026-01-01&to=2026-06-15')).body.lines.map((l: any) => l.reference);
    expect(numbers).toHaveLength(70);
    for (const n of numbers) expect(pages.join('\n')).toContain(n);
  });

  it('prints names in any European script (an embedded font: Latin Extended, Greek, Cyrillic)', async () => {
    const names = { name: 'Zakład Łódź Sp. z o.o.', city: 'Москва' };
    const c = await r.customer({ name: names.name, billing_address: { line1: 'ul. Piotrkowska 1', city: names.city, country: 'PL' } });
    await r.invoice(c.id, 1_234, { issue_date: '2026-06-01' });
    await r.payment({ customer_id: c.id, amount: 234, payment_date: '2026-06-02', reference: 'Ωμέγα Щука Ärger', auto_match: 'none' });
    const [page] = await pdfPages((await pdf(c.id, '?from=2026-06-01&to=2026-06-15')).body);
    for (const text of [names.name, names.city, 'Ωμέγα Щука Ärger', '12.34', '2.34', '10.00']) expect(page).toContain(text);
  });

  it('gives CSV amounts in major units with the currency’s number of decimals (JPY 0, BHD 3)', async () => {
    for (const [currency, expected] of [['jpy', '1250'], ['bhd', '1.250'], ['usd', '12.50']] as const) {
      const c = await r.customer({ currency });
      await r.invoice(c.id, 1_250, { issue_date: '2026-06-01', currency });
      const rows = (await statement(c.id, '?from=2026-06-01&to=2026-06-15', 'text/csv')).text.trim().split('\r\n');
      expect(rows[2].split(',').slice(-4)).toEqual([currency, expected, currency === 'jpy' ? '0' : currency === 'bhd' ? '0.000' : '0.00', expected]);
    }
  });

  it('ages what was owed as of `to`: invoices issued by then, their amounts then, and the unapplied credit', async () => {
    const c = await r.customer();
    const a = await r.invoice(c.id, 10_000, { issue_date: '2026-03-01', due_date: '2026-03-31' });
    const voided = await r.invoice(c.id, 5_000, { issue_date: '2026-03-10', due_date: '2026-03-20' });
    await r.payment({ customer_id: c.id, amount: 3_000, payment_date: '2026-03-15', remittance: [{ invoice_id: a.id }] });
    await r.payment({ customer_id: c.id, amount: 2_000, payment_date: '2026-04-10', remittance: [{ invoice_id: a.id }] }); // after `to`
    const credit = (await r.payment({ customer_id: c.id, amount: 1_500, payment_date: '2026-03-20', auto_match: 'none' })).body;
    await r.payment({ customer_id: c.id, amount: 500, payment_date: '2026-03-25', auto_match: 'none' });
    const later = await r.invoice(c.id, 4_000, { issue_date: '2026-04-05', due_date: '2026-05-05' }); // issued after `to`
    expect((await app.post(`/api/v1/payments/${credit.id}/match`, { applications: [{ invoice_id: later.id }] }, tenant.token)).status).toBe(200);
    expect((await app.patch(`/api/v1/invoices/${voided.id}`, { status: 'void' }, tenant.token)).status).toBe(200); // voided today, after `to`

    const s = (await statement(c.id, '?from=2026-03-01&to=2026-03-31')).body;
    // Owed at the end of March: A less the March payment (7,000, due that day) and the invoice voided only in June (5,000, 11 days late);
    // the 1,500 and 500 received in March were credit then (the 1,500 went to an April invoice).
    expect(s).toMatchObject({
      closing_balance: 10_000,
      aging: { current: 7_000, days_1_30: 5_000, days_31_60: 0, days_61_90: 0, days_over_90: 0 },
      unapplied_credit: 2_000,
    });
    const open = Object.values(s.aging as Record<string, number>).reduce((x, y) => x + y, 0);
    expect(open - s.unapplied_credit).toBe(s.closing_balance);
  });

  it('balances over random histories: opening + debits − credits = closing, and closing is the balance as of `to`', async () => {
    const day = fc.integer({ min: 0, max: 165 }).map((n) => addDays('2026-01-01', n));
    const op = fc.oneof(
      fc.record({ kind: fc.constant('invoice' as const), amount: fc.integer({ min: 1, max: 50_000 }), date: day, draft: fc.boolean() }),
      fc.record({ kind: fc.constant('payment' as const), amount: fc.integer({ min: 1, max: 50_000 }), date: day, mode: fc.constantFrom('strict', 'oldest_first', 'none') }),
      fc.record({ kind: fc.constantFrom('void' as const, 'uncollectible' as const, 'reopen' as const, 'edit' as const, 'reverse' as const), pick: fc.nat(), amount: fc.integer({ min: 1, max: 50_000 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 10 }), day, day, async (ops, d1, d2) => {
        const c = await r.customer();
        const invoices: any[] = [];
        const payments: any[] = [];
        for (const o of ops) {
          if (o.kind === 'invoice') invoices.push(await r.invoice(c.id, o.amount, { issue_date: o.date, ...(o.draft ? { status: 'draft' } : {}) }));
          else if (o.kind === 'payment') payments.push((await r.payment({ customer_id: c.id, amount: o.amount, payment_date: o.date, auto_match: o.mode })).body);
          else if (o.kind === 'reverse') {
            const p = payments.length ? await r.getPayment(payments[o.pick % payments.length].id) : null;
            if (p?.applications.length) await app.delete(`/api/v1/payments/${p.id}/applications/${p.applications[0].id}`, tenant.token);
          } else if (invoices.length) {
            const target = invoices[o.pick % invoices.length];
            const patch =
              o.kind === 'edit'
                ? { line_items: [{ description: 'Changed', quantity: 1, unit_amount: o.amount }] }
                : { status: o.kind === 'void' ? 'void' : o.kind === 'uncollectible' ? 'uncollectible' : 'open' };
            await app.patch(`/api/v1/invoices/${target.id}`, patch, tenant.token); // refused transitions (409) are part of the game
          }
        }
        const [from, to] = d1 <= d2 ? [d1, d2] : [d2, d1];
        const s = (await statement(c.id, `?from=${from}&to=${to}`)).body;
        expect(s.opening_balance + s.total_debits - s.total_credits).toBe(s.closing_balance);
        expect(s.total_debits).toBe(s.lines.reduce((sum: number, l: any) => sum + l.debit, 0));
        expect(s.total_credits).toBe(s.lines.reduce((sum: number, l: any) => sum + l.credit, 0));
        expect(s.lines.at(-1)?.balance ?? s.opening_balance).toBe(s.closing_balance);
        // What was owed as of `to` adds up to the closing balance: aging − unapplied credit.
        const aged = Object.values(s.aging as Record<string, number>).reduce((x, y) => x + y, 0);
        expect(aged - s.unapplied_credit).toBe(s.closing_balance);
        expect(s.unapplied_credit).toBeGreaterThanOrEqual(0);
        // Continuity: the period before `from` closes where this one opens.
        const before = (await statement(c.id, `?from=2025-01-01&to=${addDays(from, -1)}`)).body;
        expect(before.closing_balance).toBe(s.opening_balance);
        // Up to today the ledger is the customer's balance: open amount due minus unapplied payments.
        const full = (await statement(c.id, `?from=2025-01-01&to=${TODAY}`)).body;
        const customer = (await app.get(`/api/v1/customers/${c.id}`, tenant.token)).body;
        expect(full.closing_balance).toBe(customer.balance);
        const open = await app.query<{ due: number }>(
          `SELECT COALESCE(SUM(amount_due), 0)::int AS due FROM invoices WHERE tenant_id = $1 AND customer_id = $2 AND status IN ('open', 'partially_paid')`,
          [tenant.tenant_id, c.id],
        );
        expect(customer.balance).toBe(open[0].due - customer.ar_summary.unapplied_payments);
      }),
      { numRuns: 20 },
    );
  });
});
