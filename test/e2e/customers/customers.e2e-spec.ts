import { addDays, FixedClock } from '../../../src/shared/domain/clock';
import { CustomerMother } from '../../support/mothers/customer.mother';
import { InvoiceStateMother } from '../../support/mothers/invoice-state.mother';
import { InvoiceMother } from '../../support/mothers/invoice.mother';
import { expectProblem, TestApp, TestTenant } from '../../support/test-app';

const TODAY = '2026-06-30';

describe('customers', () => {
  const clock = new FixedClock(new Date(`${TODAY}T12:00:00Z`));
  let app: TestApp;
  let t: TestTenant;
  let other: TestTenant;

  beforeAll(async () => {
    app = await TestApp.start({ clock });
    [t, other] = await Promise.all([app.createTenant('Customers'), app.createTenant('Other')]);
  });
  afterAll(() => app.close());

  const createCustomer = async (overrides: Record<string, unknown> = {}, tenant = t) => {
    const res = await app.post('/api/v1/customers', CustomerMother.request(overrides), tenant.token);
    expect(res.status).toBe(201);
    return res.body;
  };
  const invoice = async (customerId: string, amount: number, dates: { issue_date?: string; due_date?: string } = {}, extra: Record<string, unknown> = {}) => {
    const res = await app.post(
      '/api/v1/invoices',
      InvoiceMother.request({ customer_id: customerId, line_items: [InvoiceMother.line({ unit_amount: amount })], ...dates, ...extra }),
      t.token,
    );
    expect(res.status).toBe(201);
    return res.body;
  };
  const count = async () => Number((await app.query(`SELECT count(*)::int AS n FROM customers WHERE tenant_id = $1`, [t.tenant_id]))[0].n);

  describe('POST /customers', () => {
    it('creates a customer with defaults and zero figures', async () => {
      const res = await app.post(
        '/api/v1/customers',
        { name: 'Acme', email: 'ap@acme.example', external_id: 'A-1', currency: 'EUR', billing_address: { line1: '1 Main St', country: 'de' }, metadata: { tier: 'gold' } },
        t.token,
      );
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.stringMatching(/^cus_/),
        name: 'Acme',
        email: 'ap@acme.example',
        external_id: 'A-1',
        phone: null,
        billing_address: { line1: '1 Main St', line2: null, city: null, region: null, postal_code: null, country: 'DE' },
        currency: 'eur',
        payment_terms_days: 30,
        credit_limit: null,
        credit_hold: false,
        metadata: { tier: 'gold' },
        aliases: [],
        payer_accounts: [],
        balance: 0,
        overdue_amount: 0,
        credit_available: null,
        credit_status: 'ok',
        aging: { current: 0, days_1_30: 0, days_31_60: 0, days_61_90: 0, days_over_90: 0 },
        created_at: `${TODAY}T12:00:00.000Z`,
        updated_at: `${TODAY}T12:00:00.000Z`,
        ar_summary: {
          total_invoiced: 0,
          total_paid: 0,
          total_credited: 0,
          total_written_off: 0,
          total_refunded: 0,
          balance: 0,
          unapplied_payments: 0,
          overdue_amount: 0,
          open_invoice_count: 0,
          overdue_invoice_count: 0,
          average_days_to_pay: null,
          last_payment: null,
        },
      });
    });

    it('refuses a duplicate external_id (409) but allows it in another tenant', async () => {
      await createCustomer({ external_id: 'dup-1' });
      const before = await count();
      expectProblem(await app.post('/api/v1/customers', CustomerMother.request({ external_id: 'dup-1' }), t.token), 409, 'conflict');
      expect(await count()).toBe(before);
      await createCustomer({ external_id: 'dup-1' }, other);
    });

    it.each([
      [{ name: undefined }, 'name'],
      [{ currency: undefined }, 'currency'],
      [{ currency: 'usdx' }, 'currency'],
      [{ email: 'nope' }, 'email'],
      [{ payment_terms_days: 400 }, 'payment_terms_days'],
      [{ payment_terms_days: '30' }, 'payment_terms_days'],
      [{ credit_limit: -1 }, 'credit_limit'],
      [{ credit_limit: 10.5 }, 'credit_limit'],
      [{ credit_hold: 'yes' }, 'credit_hold'],
      [{ billing_address: { street: 'x' } }, 'billing_address.street'],
      [{ metadata: ['a'] }, 'metadata'],
      [{ balance: 5 }, 'balance'],
    ])('refuses %p with 400 and creates nothing', async (overrides, field) => {
      const before = await count();
      const res = await app.post('/api/v1/customers', CustomerMother.request(overrides), t.token);
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
      expect(await count()).toBe(before);
    });

    it('needs the customers:write scope', async () => {
      const reader = await app.createClient(t.tenant_id, 'customers:read');
      expectProblem(await app.post('/api/v1/customers', CustomerMother.request(), reader.token), 403, 'forbidden');
      expect((await app.get('/api/v1/customers', reader.token)).status).toBe(200);
    });
  });

  describe('PATCH /customers/:id', () => {
    it('changes what is sent and clears nullable fields with null', async () => {
      const c = await createCustomer({ phone: '+1 555', credit_limit: 5000 });
      clock.set(new Date(`${TODAY}T13:00:00Z`));
      const res = await app.patch(`/api/v1/customers/${c.id}`, { name: 'Renamed', phone: null, credit_limit: null, payment_terms_days: 45 }, t.token);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ name: 'Renamed', phone: null, credit_limit: null, payment_terms_days: 45, email: c.email, updated_at: `${TODAY}T13:00:00.000Z` });
      clock.set(new Date(`${TODAY}T12:00:00Z`));
    });

    it('keeps the currency once the customer has invoices (409), allows it before', async () => {
      const c = await createCustomer();
      expect((await app.patch(`/api/v1/customers/${c.id}`, { currency: 'gbp' }, t.token)).body.currency).toBe('gbp');
      await invoice(c.id, 100, {}, { status: 'draft' });
      expectProblem(await app.patch(`/api/v1/customers/${c.id}`, { currency: 'usd' }, t.token), 409, 'invalid_state');
      expect((await app.get(`/api/v1/customers/${c.id}`, t.token)).body.currency).toBe('gbp');
    });

    it('refuses another customer\'s external_id (409), a null name and unknown fields (400), changing nothing', async () => {
      await createCustomer({ external_id: 'taken' });
      const c = await createCustomer({ external_id: 'mine' });
      expectProblem(await app.patch(`/api/v1/customers/${c.id}`, { external_id: 'taken' }, t.token), 409, 'conflict');
      expectProblem(await app.patch(`/api/v1/customers/${c.id}`, { name: null }, t.token), 400, 'validation_failed');
      expectProblem(await app.patch(`/api/v1/customers/${c.id}`, { name: 'x', overdue_amount: 0 }, t.token), 400, 'validation_failed');
      expect((await app.get(`/api/v1/customers/${c.id}`, t.token)).body).toMatchObject({ external_id: 'mine', name: c.name });
    });
  });

  describe('tenant isolation', () => {
    it("answers 404 for another tenant's customer on every endpoint and never lists it", async () => {
      const theirs = await createCustomer({ name: 'Secret Co', external_id: 'secret' }, other);
      expectProblem(await app.get(`/api/v1/customers/${theirs.id}`, t.token), 404, 'not_found');
      expectProblem(await app.patch(`/api/v1/customers/${theirs.id}`, { name: 'Hacked' }, t.token), 404, 'not_found');
      expectProblem(await app.post('/api/v1/invoices', InvoiceMother.request({ customer_id: theirs.id }), t.token), 404, 'not_found');
      const listed = await app.get('/api/v1/customers?q=secret&limit=100', t.token);
      expect(listed.body.data).toEqual([]);
      expect((await app.get(`/api/v1/customers/${theirs.id}`, other.token)).body.name).toBe('Secret Co');
      for (const id of ['cus_nope', 'cus_01jc9x7m3ef0ab6yr2t0n4q8zd', 'inv_01jc9x7m3ef0ab6yr2t0n4q8zd']) {
        expectProblem(await app.get(`/api/v1/customers/${id}`, t.token), 404, 'not_found');
      }
    });
  });

  describe('aging, overdue and AR summary', () => {
    it('buckets invoices due in the future and 10, 45, 75, 120 days ago; the buckets add up to the open amount due', async () => {
      const c = await createCustomer();
      const dueDaysAgo = (days: number) => ({ issue_date: addDays(TODAY, -days - 30), due_date: addDays(TODAY, -days) });
      await invoice(c.id, 1000, { issue_date: TODAY, due_date: addDays(TODAY, 15) });
      await invoice(c.id, 2000, dueDaysAgo(10));
      await invoice(c.id, 3000, dueDaysAgo(45));
      await invoice(c.id, 4000, dueDaysAgo(75));
      const partly = await invoice(c.id, 5000, dueDaysAgo(120));
      await InvoiceStateMother.pay(app, t.tenant_id, partly.id, 1500); // 3500 still open
      // None of these is open receivable: draft, void, paid, uncollectible.
      await invoice(c.id, 700, dueDaysAgo(10), { status: 'draft' });
      const voided = await invoice(c.id, 800, dueDaysAgo(10));
      await app.patch(`/api/v1/invoices/${voided.id}`, { status: 'void' }, t.token);
      const paid = await invoice(c.id, 900, dueDaysAgo(10));
      await InvoiceStateMother.pay(app, t.tenant_id, paid.id, 900);
      const bad = await invoice(c.id, 600, dueDaysAgo(200));
      await app.patch(`/api/v1/invoices/${bad.id}`, { status: 'uncollectible' }, t.token);

      const res = await app.get(`/api/v1/customers/${c.id}?as_of=${TODAY}`, t.token);
      expect(res.body.aging).toEqual({ current: 1000, days_1_30: 2000, days_31_60: 3000, days_61_90: 4000, days_over_90: 3500 });
      const open = 1000 + 2000 + 3000 + 4000 + 3500;
      expect(Object.values(res.body.aging as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(open);
      expect(res.body).toMatchObject({ balance: open, overdue_amount: open - 1000 });
      expect(res.body.ar_summary).toMatchObject({
        total_invoiced: 1000 + 2000 + 3000 + 4000 + 5000 + 900 + 600, // finalized and not void
        balance: open,
        overdue_amount: open - 1000,
        open_invoice_count: 5,
        overdue_invoice_count: 4,
        average_days_to_pay: 40, // the paid invoice: issued 40 days before today, paid today
      });

      // 30 days on, everything moves along a bucket or so (days past due: 15, 40, 75, 105, 150).
      const later = await app.get(`/api/v1/customers/${c.id}?as_of=${addDays(TODAY, 30)}`, t.token);
      expect(later.body.aging).toEqual({ current: 0, days_1_30: 1000, days_31_60: 2000, days_61_90: 3000, days_over_90: 7500 });
      const earlier = await app.get(`/api/v1/customers/${c.id}?as_of=${addDays(TODAY, -200)}`, t.token);
      expect(earlier.body.aging).toEqual({ current: open, days_1_30: 0, days_31_60: 0, days_61_90: 0, days_over_90: 0 });
      expect(later.body.overdue_amount).toBe(open - 1000); // overdue_amount is as of today; as_of moves the aging only

      const listed = await app.get(`/api/v1/customers?q=${encodeURIComponent(c.email)}&as_of=${TODAY}`, t.token);
      expect(listed.body.data[0]).toMatchObject({ id: c.id, aging: res.body.aging, balance: open, overdue_amount: open - 1000 });
      expect(listed.body.data[0].ar_summary).toBeUndefined();
    });

    it('refuses a bad as_of (400)', async () => {
      const c = await createCustomer();
      expectProblem(await app.get(`/api/v1/customers/${c.id}?as_of=2026-02-30`, t.token), 400, 'validation_failed');
      expectProblem(await app.get(`/api/v1/customers?as_of=tomorrow`, t.token), 400, 'validation_failed');
    });
  });

  describe('credit', () => {
    it('is over_limit when the balance exceeds the limit (credit_available negative) and on_hold with a hold', async () => {
      const c = await createCustomer({ credit_limit: 15000 });
      await invoice(c.id, 10000);
      let res = await app.get(`/api/v1/customers/${c.id}`, t.token);
      expect(res.body).toMatchObject({ balance: 10000, credit_available: 5000, credit_status: 'ok' });
      await invoice(c.id, 5000);
      res = await app.get(`/api/v1/customers/${c.id}`, t.token);
      expect(res.body).toMatchObject({ balance: 15000, credit_available: 0, credit_status: 'ok' }); // at the limit is not over it
      await invoice(c.id, 5001);
      res = await app.get(`/api/v1/customers/${c.id}`, t.token);
      expect(res.body).toMatchObject({ balance: 20001, credit_available: -5001, credit_status: 'over_limit' });
      res = await app.patch(`/api/v1/customers/${c.id}`, { credit_hold: true }, t.token);
      expect(res.body).toMatchObject({ credit_status: 'on_hold', credit_available: -5001 });
      res = await app.patch(`/api/v1/customers/${c.id}`, { credit_hold: false, credit_limit: null }, t.token);
      expect(res.body).toMatchObject({ credit_status: 'ok', credit_available: null });
    });
  });

  describe('GET /customers', () => {
    let tenant: TestTenant;
    const byId = new Map<string, { id: string; name: string; created_at: string; balance: number; overdue_amount: number; credit_status: string; email: string; external_id: string | null }>();

    beforeAll(async () => {
      tenant = await app.createTenant('Customer lists');
      for (let i = 0; i < 32; i++) {
        clock.set(new Date(Date.parse(`${TODAY}T12:00:00Z`) + i * 1000));
        const c = (
          await app.post(
            '/api/v1/customers',
            CustomerMother.request({
              name: ['Zeta', 'Alpha', 'Mid', 'alpha'][i % 4] + ` ${i % 5}`,
              external_id: i % 3 === 0 ? `EXT_${i}%` : null,
              credit_limit: i % 6 === 0 ? 1500 : null,
              credit_hold: i % 7 === 0,
            }),
            tenant.token,
          )
        ).body;
        const amount = (i % 5) * 1000; // ties in balance on purpose
        if (amount > 0) {
          await app.post(
            '/api/v1/invoices',
            InvoiceMother.request({
              customer_id: c.id,
              issue_date: '2026-05-01',
              due_date: i % 2 ? '2026-06-01' : '2026-07-31', // odd ones overdue
              line_items: [InvoiceMother.line({ unit_amount: amount })],
            }),
            tenant.token,
          );
        }
      }
      clock.set(new Date(`${TODAY}T12:00:00Z`));
      const page = await app.get('/api/v1/customers?limit=100', tenant.token);
      for (const c of page.body.data) byId.set(c.id, c);
      expect(byId.size).toBe(32);
    });

    async function walk(query: string, limit: number): Promise<string[]> {
      const seen: string[] = [];
      let url = `/api/v1/customers?${query}&limit=${limit}`;
      for (;;) {
        const res = await app.get(url, tenant.token);
        expect(res.status).toBe(200);
        seen.push(...res.body.data.map((c: { id: string }) => c.id));
        if (!res.body.has_more) return seen;
        url = /^<([^>]+)>; rel="next"$/.exec(res.headers.get('link') ?? '')![1];
      }
    }
    const expected = (filter: (c: ReturnType<typeof byId.get> & object) => boolean, sort: string) => {
      const field = sort.replace(/^-/, '') as 'name' | 'created_at' | 'balance' | 'overdue_amount';
      const dir = sort.startsWith('-') ? -1 : 1;
      return [...byId.values()]
        .filter(filter)
        .sort((x, y) => dir * (x[field] < y[field] ? -1 : x[field] > y[field] ? 1 : x.id < y.id ? -1 : 1))
        .map((c) => c.id);
    };

    it.each(['created_at', '-created_at', 'name', '-name', 'balance', '-balance', 'overdue_amount', '-overdue_amount'])(
      'walks every customer sorted by %s, with no duplicate or gap',
      async (sort) => {
        expect(await walk(`sort=${sort}`, 5)).toEqual(expected(() => true, sort));
      },
    );

    it.each<[string, (c: { name: string; email: string; external_id: string | null; balance: number; overdue_amount: number; credit_status: string }) => boolean]>([
      ['q=ALPHA', (c) => c.name.toLowerCase().includes('alpha')],
      ['q=%25', (c) => (c.external_id ?? '').includes('%')], // % is matched literally
      ['q=ext_1', (c) => (c.external_id ?? '').toLowerCase().includes('ext_1')],
      ['q=example.com', (c) => c.email.includes('example.com')],
      ['has_balance=true', (c) => c.balance > 0],
      ['has_balance=false', (c) => c.balance <= 0],
      ['overdue=true', (c) => c.overdue_amount > 0],
      ['overdue=false', (c) => c.overdue_amount === 0],
      ['credit_status=on_hold', (c) => c.credit_status === 'on_hold'],
      ['credit_status=over_limit', (c) => c.credit_status === 'over_limit'],
      ['credit_status=ok,over_limit', (c) => c.credit_status !== 'on_hold'],
      ['overdue=true&has_balance=true&sort=-overdue_amount', (c) => c.overdue_amount > 0],
    ])('filters %s', async (query, filter) => {
      const sort = new URLSearchParams(query).get('sort') ?? '-created_at';
      const want = expected(filter, sort);
      expect(want.length).toBeGreaterThan(0);
      expect(await walk(query, 4)).toEqual(want);
    });

    it.each(['limit=0', 'limit=101', 'has_balance=maybe', 'overdue=1', 'credit_status=bad', 'sort=email', 'q=', 'cursor=xyz', 'unknown=1'])(
      '%s is a 400',
      async (query) => {
        expectProblem(await app.get(`/api/v1/customers?${query}`, tenant.token), 400, 'validation_failed');
      },
    );

    it('refuses a cursor from another sort or filter', async () => {
      const first = await app.get('/api/v1/customers?sort=name&limit=3', tenant.token);
      expectProblem(await app.get(`/api/v1/customers?sort=balance&limit=3&cursor=${first.body.next_cursor}`, tenant.token), 400, 'validation_failed');
      expectProblem(await app.get(`/api/v1/customers?sort=name&q=a&limit=3&cursor=${first.body.next_cursor}`, tenant.token), 400, 'validation_failed');
    });

    it('sees invoices become overdue as the days pass (the denormalised figures refresh themselves)', async () => {
      const before = await walk('overdue=true', 100);
      const dueTomorrow = [...byId.values()].filter((c) => c.balance > 0 && c.overdue_amount === 0); // due 2026-07-31
      expect(dueTomorrow.length).toBeGreaterThan(0);
      clock.set(new Date('2026-08-01T09:00:00Z'));
      try {
        const after = await walk('overdue=true&sort=-overdue_amount', 100);
        expect(after.length).toBe(before.length + dueTomorrow.length);
        const rows = (await app.get('/api/v1/customers?overdue=true&sort=-overdue_amount&limit=100', tenant.token)).body.data;
        for (const row of rows) expect(row.overdue_amount).toBe(row.balance);
        const amounts = rows.map((r: { overdue_amount: number }) => r.overdue_amount);
        expect(amounts).toEqual([...amounts].sort((a, b) => b - a));
      } finally {
        clock.set(new Date(`${TODAY}T12:00:00Z`));
      }
    });
  });
});
