import { expectProblem, TestApp, TestTenant } from '../../support/test-app';
import { Receivables } from './support';

/** GET /payments/:id and GET /payments: filters, sorts, keyset pages, tenant isolation (contract §5, §8). */
describe('reading payments', () => {
  let app: TestApp;
  let tenant: TestTenant;
  let other: TestTenant;
  let r: Receivables;
  let customerA: string;
  let customerB: string;
  /** id by label, in creation order */
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    app = await TestApp.start();
    tenant = await app.createTenant();
    other = await app.createTenant('Other');
    r = new Receivables(app, tenant);
    customerA = (await r.customer()).id;
    customerB = (await r.customer()).id;
    const invoice = await r.invoice(customerA, 500);
    const make = async (label: string, body: Record<string, unknown>) => {
      const res = await r.payment(body);
      if (res.status !== 201) throw new Error(res.text);
      ids[label] = res.body.id;
    };
    await make('a-jan-applied', { customer_id: customerA, amount: 500, payment_date: '2026-01-10', method: 'ach', remittance: [{ invoice_id: invoice.id }] });
    await make('a-jan-unapplied', { customer_id: customerA, amount: 3_000, payment_date: '2026-01-31', method: 'wire', auto_match: 'none' });
    await make('b-feb', { customer_id: customerB, amount: 1_000, payment_date: '2026-02-01', method: 'check' });
    await make('unidentified-mar', { amount: 2_000, currency: 'usd', payment_date: '2026-03-01', method: 'ach' });
    const partial = await r.invoice(customerB, 400);
    await make('b-mar-partial', { customer_id: customerB, amount: 900, payment_date: '2026-03-02', method: 'card', remittance: [{ invoice_id: partial.id }] });
    await new Receivables(app, other).payment({ amount: 777, currency: 'usd', payment_date: '2026-01-15' });
  });
  afterAll(() => app.close());

  const list = async (query: string, token = tenant.token) => {
    const res = await app.get(`/api/v1/payments${query}`, token);
    expect(res.status).toBe(200);
    return res.body.data.map((p: any) => Object.entries(ids).find(([, id]) => id === p.id)?.[0] ?? p.id);
  };

  it('gets one payment; 404 for unknown, malformed and other tenants’ ids', async () => {
    const res = await app.get(`/api/v1/payments/${ids['b-mar-partial']}`, tenant.token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: ids['b-mar-partial'], customer_id: customerB, amount: 900, method: 'card', status: 'partially_applied', amount_applied: 400 });
    for (const id of ['pay_01jc9x7m3ef0ab6yr2t0n4q8zd', 'garbage', ids['a-jan-applied']]) {
      expectProblem(await app.get(`/api/v1/payments/${id}`, id === ids['a-jan-applied'] ? other.token : tenant.token), 404, 'not_found');
    }
  });

  it('lists newest first by default, the tenant’s payments only', async () => {
    expect(await list('')).toEqual(['b-mar-partial', 'unidentified-mar', 'b-feb', 'a-jan-unapplied', 'a-jan-applied']);
    const theirs = await app.get('/api/v1/payments', other.token);
    expect(theirs.body.data).toHaveLength(1);
    expect(theirs.body.data[0].amount).toBe(777);
  });

  it('filters by status (comma list), customer, method and an inclusive payment date range', async () => {
    expect(await list('?status=unapplied')).toEqual(['unidentified-mar', 'b-feb', 'a-jan-unapplied']);
    expect(await list('?status=applied,partially_applied')).toEqual(['b-mar-partial', 'a-jan-applied']);
    expect(await list(`?customer_id=${customerA}`)).toEqual(['a-jan-unapplied', 'a-jan-applied']);
    expect(await list('?method=ach')).toEqual(['unidentified-mar', 'a-jan-applied']);
    expect(await list('?payment_date_from=2026-01-31&payment_date_to=2026-03-01')).toEqual(['unidentified-mar', 'b-feb', 'a-jan-unapplied']);
    expect(await list('?payment_date_to=2026-01-10')).toEqual(['a-jan-applied']);
    expect(await list(`?customer_id=${customerB}&status=unapplied&payment_date_from=2026-02-01`)).toEqual(['b-feb']);
  });

  it('sorts by payment_date and amount, either way, ties by id', async () => {
    expect(await list('?sort=payment_date')).toEqual(['a-jan-applied', 'a-jan-unapplied', 'b-feb', 'unidentified-mar', 'b-mar-partial']);
    expect(await list('?sort=-amount')).toEqual(['a-jan-unapplied', 'unidentified-mar', 'b-feb', 'b-mar-partial', 'a-jan-applied']);
    expect(await list('?sort=amount&limit=2')).toEqual(['a-jan-applied', 'b-mar-partial']);
  });

  it.each(['', '?sort=payment_date', '?sort=-amount', '?status=unapplied,applied&sort=created_at'])('pages through %p with cursors and Link headers', async (query) => {
    const all = await list(query);
    const seen: string[] = [];
    let path = `/api/v1/payments${query}${query ? '&' : '?'}limit=2`;
    for (let page = 0; page < 10; page++) {
      const res = await app.get(path, tenant.token);
      seen.push(...res.body.data.map((p: any) => Object.entries(ids).find(([, id]) => id === p.id)![0]));
      if (!res.body.has_more) {
        expect(res.body.next_cursor).toBeNull();
        expect(res.headers.get('link')).toBeNull();
        break;
      }
      const link = res.headers.get('link')!;
      expect(link).toMatch(/^<\/api\/v1\/payments\?.*cursor=.*>; rel="next"$/);
      path = link.slice(1, link.indexOf('>'));
    }
    expect(seen).toEqual(all);
  });

  it.each([
    ['an unknown status', '?status=paid'],
    ['an unknown method', '?method=bitcoin'],
    ['a bad date', '?payment_date_from=2026-13-01'],
    ['from after to', '?payment_date_from=2026-03-01&payment_date_to=2026-02-01'],
    ['an unknown sort', '?sort=reference'],
    ['limit 0', '?limit=0'],
    ['limit 101', '?limit=101'],
    ['a garbage cursor', '?cursor=xyz'],
    ['an unknown parameter', '?colour=red'],
  ])('400 for %s', async (_name, query) => {
    expectProblem(await app.get(`/api/v1/payments${query}`, tenant.token), 400, 'validation_failed');
  });

  it('400 for a cursor used with other filters or another sort', async () => {
    const first = await app.get('/api/v1/payments?limit=1&sort=amount', tenant.token);
    const cursor = first.body.next_cursor;
    expectProblem(await app.get(`/api/v1/payments?limit=1&sort=-amount&cursor=${cursor}`, tenant.token), 400, 'validation_failed');
    expectProblem(await app.get(`/api/v1/payments?limit=1&sort=amount&method=ach&cursor=${cursor}`, tenant.token), 400, 'validation_failed');
  });

  it('needs payments:read', async () => {
    const invoicesOnly = await app.createClient(tenant.tenant_id, 'invoices:read');
    expect((await app.get('/api/v1/payments', invoicesOnly.token)).status).toBe(403);
  });

  it('serves list pages from tenant-leading indexes', async () => {
    const plans = await app.query<{ indexname: string; indexdef: string }>(`SELECT indexname, indexdef FROM pg_indexes WHERE tablename IN ('payments', 'payment_applications')`);
    const nonPrimary = plans.filter((p) => !p.indexname.endsWith('_pkey'));
    expect(nonPrimary.length).toBeGreaterThanOrEqual(6);
    expect(nonPrimary.every((p) => /\(tenant_id, /.test(p.indexdef))).toBe(true);
  });
});
