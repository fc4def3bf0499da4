import { addDays, FixedClock } from '../../../src/shared/domain/clock';
import { CustomerMother } from '../../support/mothers/customer.mother';
import { InvoiceStateMother } from '../../support/mothers/invoice-state.mother';
import { InvoiceMother } from '../../support/mothers/invoice.mother';
import { ApiResponse, expectProblem, TestApp, TestTenant } from '../../support/test-app';

type Inv = {
  id: string;
  number: string;
  customer_id: string;
  status: string;
  currency: string;
  issue_date: string;
  due_date: string;
  total: number;
  amount_due: number;
  overdue: boolean;
  dispute: { status: string } | null;
  created_at: string;
};

const TODAY = '2026-06-30';
const SORTS = ['created_at', 'issue_date', 'due_date', 'number', 'total', 'amount_due'] as const;

describe('GET /invoices', () => {
  const clock = new FixedClock(new Date(`${TODAY}T08:00:00Z`));
  let app: TestApp;
  let t: TestTenant;
  let other: TestTenant;
  let customers: { a: string; b: string; e: string; foreign: string };
  /** Every invoice of the tenant, as its detail endpoint last showed it (the list's ground truth). */
  const all = new Map<string, Inv>();

  /** Walks every page; checks the Link header against next_cursor on the way. */
  async function walk(query: string, limit: number, token = t.token, between?: () => Promise<void>): Promise<Inv[]> {
    const seen: Inv[] = [];
    let url = `/api/v1/invoices?${query}${query ? '&' : ''}limit=${limit}`;
    for (let pages = 0; pages < 200; pages++) {
      const res = await app.get(url, token);
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(limit);
      seen.push(...res.body.data);
      if (!res.body.has_more) {
        expect(res.body.next_cursor).toBeNull();
        expect(res.headers.get('link')).toBeNull();
        return seen;
      }
      expect(res.body.data).toHaveLength(limit);
      const link = /^<([^>]+)>; rel="next"$/.exec(res.headers.get('link') ?? '');
      expect(link).not.toBeNull();
      expect(new URL(link![1], 'http://x').searchParams.get('cursor')).toBe(res.body.next_cursor);
      url = link![1];
      if (between) await between();
    }
    throw new Error('too many pages');
  }

  function expected(filter: (i: Inv) => boolean, sort = '-created_at'): string[] {
    const field = sort.replace(/^-/, '') as keyof Inv;
    const dir = sort.startsWith('-') ? -1 : 1;
    return [...all.values()]
      .filter(filter)
      .sort((x, y) => {
        const a = x[field] as string | number;
        const b = y[field] as string | number;
        return dir * (a < b ? -1 : a > b ? 1 : x.id < y.id ? -1 : x.id > y.id ? 1 : 0);
      })
      .map((i) => i.id);
  }

  const ids = (rows: Inv[]) => rows.map((r) => r.id);

  beforeAll(async () => {
    app = await TestApp.start({ clock });
    [t, other] = await Promise.all([app.createTenant('Lists'), app.createTenant('Other')]);
    const mk = async (tenant: TestTenant, overrides = {}) => (await app.post('/api/v1/customers', CustomerMother.request(overrides), tenant.token)).body.id;
    customers = { a: await mk(t), b: await mk(t), e: await mk(t, { currency: 'eur' }), foreign: await mk(other) };
    await app.post('/api/v1/invoices', InvoiceMother.request({ customer_id: customers.foreign }), other.token);

    const make = async (i: number) => {
      const issue = addDays('2026-01-01', (i * 7) % 170);
      const body = InvoiceMother.request({
        customer_id: [customers.a, customers.b, customers.e][i % 3],
        status: i % 10 === 0 ? 'draft' : 'open',
        issue_date: issue,
        due_date: addDays(issue, (i % 4) * 15),
        line_items: [InvoiceMother.line({ unit_amount: 1000 + ((i * 37) % 12) * 100 })],
        ...(i % 11 === 5 ? { number: `ZZ-${1000 - i}` } : {}),
      });
      let inv = (await app.post('/api/v1/invoices', body, t.token)).body;
      const patch = i % 10 === 1 ? { status: 'void' } : i % 10 === 2 ? { status: 'uncollectible' } : i % 10 === 3 ? { dispute: { status: 'open', reason: 'r' } } : null;
      if (patch) inv = (await app.patch(`/api/v1/invoices/${inv.id}`, patch, t.token)).body;
      if (i % 10 === 4 || i % 10 === 5) {
        await InvoiceStateMother.pay(app, t.tenant_id, inv.id, i % 10 === 4 ? 500 : inv.total);
        inv = (await app.get(`/api/v1/invoices/${inv.id}`, t.token)).body;
      }
      all.set(inv.id, inv);
    };
    // Six at a time per clock second: distinct created_at across batches, ties within (broken by id).
    for (let batch = 0; batch < 11; batch++) {
      clock.set(new Date(Date.parse(`${TODAY}T08:00:00Z`) + batch * 1000));
      await Promise.all([0, 1, 2, 3, 4, 5].map((k) => make(batch * 6 + k)));
    }
    clock.set(new Date(`${TODAY}T12:00:00Z`));
  }, 300_000);
  afterAll(() => app.close());

  it('walks 60+ invoices page by page on every sort, both directions, with no duplicate or gap', async () => {
    expect(all.size).toBeGreaterThanOrEqual(60);
    for (const field of SORTS) {
      for (const sort of [field, `-${field}`]) {
        const rows = await walk(`sort=${sort}`, 7);
        expect({ sort, ids: ids(rows) }).toEqual({ sort, ids: expected(() => true, sort) });
      }
    }
  });

  it('defaults to -created_at and 25 per page', async () => {
    const res = await app.get('/api/v1/invoices', t.token);
    expect(res.body.data).toHaveLength(25);
    expect(ids(res.body.data)).toEqual(expected(() => true).slice(0, 25));
    expect(res.body.has_more).toBe(true);
  });

  it('keeps its place while invoices are being created concurrently', async () => {
    const before = new Set(all.keys());
    let n = 0;
    const createSome = async () => {
      clock.set(new Date(Date.parse(`${TODAY}T13:00:00Z`) + n * 1000));
      const created = await Promise.all(
        [0, 1, 2].map(() => app.post('/api/v1/invoices', InvoiceMother.request({ customer_id: customers.a, issue_date: '2026-03-03', due_date: '2026-04-01' }), t.token)),
      );
      n += 3;
      for (const c of created) all.set(c.body.id, c.body);
    };
    for (const sort of ['-created_at', 'created_at', 'due_date', '-total']) {
      const rows = await walk(`sort=${sort}`, 10, t.token, createSome);
      const got = ids(rows);
      expect(new Set(got).size).toBe(got.length); // no duplicates
      for (const id of before) expect(got).toContain(id); // nothing that existed was skipped
    }
    expect(n).toBeGreaterThan(0);
  });

  describe('filters', () => {
    const cases: [string, (i: Inv) => boolean][] = [
      ['status=open', (i) => i.status === 'open'],
      ['status=void,uncollectible', (i) => i.status === 'void' || i.status === 'uncollectible'],
      ['status=partially_paid,paid,draft', (i) => ['partially_paid', 'paid', 'draft'].includes(i.status)],
      ['currency=EUR', (i) => i.currency === 'eur'],
      ['number=zz-995', (i) => i.number === 'ZZ-995'],
      ['number=inv-000002', (i) => i.number === 'INV-000002'],
      ['overdue=true', (i) => ['open', 'partially_paid'].includes(i.status) && i.amount_due > 0 && i.due_date < TODAY],
      ['overdue=false', (i) => !(['open', 'partially_paid'].includes(i.status) && i.amount_due > 0 && i.due_date < TODAY)],
      ['disputed=true', (i) => i.dispute?.status === 'open'],
      ['disputed=false', (i) => i.dispute?.status !== 'open'],
      ['issue_date_from=2026-03-01&issue_date_to=2026-04-15', (i) => i.issue_date >= '2026-03-01' && i.issue_date <= '2026-04-15'],
      ['due_date_from=2026-05-01', (i) => i.due_date >= '2026-05-01'],
      ['due_date_to=2026-02-14', (i) => i.due_date <= '2026-02-14'],
      ['amount_due_min=1500&amount_due_max=1800', (i) => i.amount_due >= 1500 && i.amount_due <= 1800],
      ['amount_due_max=0', (i) => i.amount_due === 0],
      ['status=open&overdue=true&amount_due_min=1200&sort=-due_date', (i) => i.status === 'open' && i.due_date < TODAY && i.amount_due >= 1200],
    ];

    it.each(cases)('%s', async (query, filter) => {
      const sort = new URLSearchParams(query).get('sort') ?? '-created_at';
      const want = expected(filter, sort);
      expect(want.length).toBeGreaterThan(0); // the data set exercises the filter
      expect(ids(await walk(query, 9))).toEqual(want);
    });

    it('customer_id', async () => {
      expect(ids(await walk(`customer_id=${customers.b}&sort=total`, 8))).toEqual(expected((i) => i.customer_id === customers.b, 'total'));
    });

    it("finds nothing for another tenant's customer, and another tenant sees none of these", async () => {
      expect((await app.get(`/api/v1/invoices?customer_id=${customers.foreign}`, t.token)).body.data).toEqual([]);
      const theirs = await walk('', 100, other.token);
      expect(theirs).toHaveLength(1);
      for (const id of ids(theirs)) expect(all.has(id)).toBe(false);
      expect((await app.get(`/api/v1/invoices?customer_id=${customers.a}`, other.token)).body.data).toEqual([]);
    });
  });

  describe('bad parameters are a 400', () => {
    it.each([
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=ten', 'limit'],
      ['limit=-1', 'limit'],
      ['status=open,closed', 'status'],
      ['status=', 'status'],
      ['overdue=yes', 'overdue'],
      ['disputed=1', 'disputed'],
      ['issue_date_from=2026-13-01', 'issue_date_from'],
      ['due_date_to=yesterday', 'due_date_to'],
      ['issue_date_from=2026-05-01&issue_date_to=2026-04-30', 'issue_date_from'],
      ['due_date_from=2026-05-01&due_date_to=2026-04-30', 'due_date_from'],
      ['amount_due_min=abc', 'amount_due_min'],
      ['amount_due_min=-5', 'amount_due_min'],
      ['amount_due_min=1.5', 'amount_due_min'],
      ['amount_due_min=10&amount_due_max=9', 'amount_due_min'],
      ['currency=dollars', 'currency'],
      ['sort=amount', 'sort'],
      ['sort=-customer_id', 'sort'],
      ['cursor=not-a-cursor', 'cursor'],
      ['colour=red', 'colour'],
    ])('%s', async (query, field) => {
      const res = await app.get(`/api/v1/invoices?${query}`, t.token);
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    });

    it('a cursor used with other filters or another sort', async () => {
      const first: ApiResponse = await app.get('/api/v1/invoices?status=open&limit=5', t.token);
      const cursor = first.body.next_cursor;
      expect((await app.get(`/api/v1/invoices?status=open&limit=7&cursor=${cursor}`, t.token)).status).toBe(200); // limit may change
      expectProblem(await app.get(`/api/v1/invoices?status=void&limit=5&cursor=${cursor}`, t.token), 400, 'validation_failed');
      expectProblem(await app.get(`/api/v1/invoices?status=open&sort=total&limit=5&cursor=${cursor}`, t.token), 400, 'validation_failed');
      expectProblem(await app.get(`/api/v1/invoices?limit=5&cursor=${cursor}`, t.token), 400, 'validation_failed');
    });
  });

  it('has an index leading with tenant_id that serves every sort as a range scan (no sort step, no OFFSET)', async () => {
    const types: Record<string, [string, string]> = {
      created_at: ['timestamptz', '2030-01-01T00:00:00Z'],
      issue_date: ['date', '2030-01-01'],
      due_date: ['date', '2030-01-01'],
      number: ['text', 'ZZZ'],
      total: ['bigint', '999999999'],
      amount_due: ['bigint', '999999999'],
    };
    for (const field of SORTS) {
      const [type, value] = types[field];
      // A tiny table would be read sequentially; with scans by heap disabled the plan shows
      // whether an index can deliver the keyset page in order.
      const plan = await app.dataSource.transaction(async (m) => {
        await m.query('SET LOCAL enable_seqscan = off');
        await m.query('SET LOCAL enable_bitmapscan = off');
        const [row] = await m.query(
          `EXPLAIN (FORMAT JSON) SELECT id FROM invoices i WHERE i.tenant_id = $1 AND (i.${field}, i.id) < ($2::${type}, $3)
            ORDER BY i.${field} DESC, i.id DESC LIMIT 26`,
          [t.tenant_id, value, 'inv_zzzz'],
        );
        return JSON.stringify(row['QUERY PLAN']);
      });
      expect({ field, sort: plan.includes('"Node Type":"Sort"'), index: /"Index Name":"(invoices_\w+_idx)"/.exec(plan)?.[1] }).toEqual({
        field,
        sort: false,
        index: `invoices_${field === 'created_at' ? 'created' : field}_idx`,
      });
    }
  });

  it('serves the collections work list (open and partially paid by due date) from the open-invoice index', async () => {
    for (const statuses of ["'open', 'partially_paid'", "'open'"]) {
      const plan = await app.dataSource.transaction(async (m) => {
        await m.query('SET LOCAL enable_seqscan = off');
        await m.query('SET LOCAL enable_bitmapscan = off');
        await m.query('SET LOCAL enable_sort = off'); // can an index deliver the page in order?
        const [row] = await m.query(
          `EXPLAIN (FORMAT JSON) SELECT id FROM invoices i WHERE i.tenant_id = $1 AND i.status IN (${statuses}) ORDER BY i.due_date, i.id LIMIT 26`,
          [t.tenant_id],
        );
        return JSON.stringify(row['QUERY PLAN']);
      });
      expect({ statuses, sort: plan.includes('"Node Type":"Sort"'), index: /"Index Name":"(invoices_\w+_idx)"/.exec(plan)?.[1] }).toEqual({
        statuses,
        sort: false,
        index: 'invoices_open_due_date_idx',
      });
    }
  });
});
