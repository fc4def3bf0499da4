import { MatchCandidates } from '../../../src/modules/payments/application/matching-ports';
import { parseInvoiceReferences } from '../../../src/modules/payments/domain/matching/invoice-reference.parser';
import { COMBINATION_POOL_SIZE } from '../../../src/modules/payments/domain/matching/combination-search';
import { TestApp, TestTenant } from '../../support/test-app';
import { InvoiceStateMother } from '../../support/mothers/invoice-state.mother';
import { Receivables } from './support';

/**
 * The SQL candidate source against PostgreSQL: what automatic matching reads is what the policy's
 * unit tests assume (test/unit/payments/match-candidate.mother.ts) — never drafts, never another
 * tenant's; the pool is the customer's open, undisputed invoices, as many as rules 3–5 need.
 */
describe('SQL match candidates', () => {
  let app: TestApp;
  let t: TestTenant;
  let other: TestTenant;
  let r: Receivables;
  const source = () => app.app.get(MatchCandidates, { strict: false }).forTenant(t.tenant_id);

  beforeAll(async () => {
    app = await TestApp.start({ env: { WORKERS_ENABLED: 'false' } });
    [t, other] = [await app.createTenant(), await app.createTenant('Other')];
    r = new Receivables(app, t);
  });
  afterAll(() => app.close());

  it('names invoices by id, by number in any case, and by the keys of references people write — not drafts, not other tenants', async () => {
    const c = await r.customer();
    const a = await r.invoice(c.id, 1_000, { number: 'INV-000123' });
    const b = await r.invoice(c.id, 2_000, { number: 'AB-77' });
    const paid = await r.invoice(c.id, 500, { number: 'INV-000500' });
    await InvoiceStateMother.pay(app, t.tenant_id, paid.id, 500);
    await r.invoice(c.id, 900, { number: 'INV-000124', status: 'draft' });
    const foreign = await new Receivables(app, other).invoice((await new Receivables(app, other).customer()).id, 1_000, { number: 'INV-000125' });

    const ids = (list: { id: string }[]) => list.map((x) => x.id).sort();
    expect(ids(await source().named({ ids: [a.id, foreign.id], numbers: [], references: [] }))).toEqual([a.id]);
    expect(ids(await source().named({ ids: [], numbers: ['ab-77', 'inv-000124'], references: [] }))).toEqual([b.id]);
    const refs = parseInvoiceReferences('Paying inv 123, #500 and INV000124 / INV-000125');
    expect(ids(await source().named({ ids: [], numbers: [], references: refs }))).toEqual([a.id, paid.id].sort());
    const [named] = await source().named({ ids: [a.id], numbers: [], references: [] });
    expect(named).toEqual({ id: a.id, number: 'INV-000123', customerId: c.id, currency: 'usd', status: 'open', amountDue: 1_000, dueDate: a.due_date, disputed: false });
  });

  it("pools the customer's open, undisputed invoices: the oldest 50, every one of the amount (to show ambiguity), and with oldest_first the run that covers it", async () => {
    const c = await r.customer();
    const someoneElse = await r.customer();
    const due = (i: number) => `2026-${String(1 + Math.floor(i / 28)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}`;
    const open = [];
    for (let i = 0; i < 60; i++) open.push(await r.invoice(c.id, 1_000, { issue_date: '2025-12-01', due_date: due(i) }));
    const late = [];
    for (let i = 60; i < 63; i++) late.push(await r.invoice(c.id, 777, { issue_date: '2025-12-01', due_date: due(i) }));
    const disputed = await r.invoice(c.id, 777, { issue_date: '2025-12-01', due_date: '2025-12-31' });
    await app.patch(`/api/v1/invoices/${disputed.id}`, { dispute: { status: 'open', reason: 'quantity' } }, t.token);
    const paid = await r.invoice(c.id, 777, { issue_date: '2025-12-01', due_date: '2025-12-30' });
    await InvoiceStateMother.pay(app, t.tenant_id, paid.id, 777);
    const voided = await r.invoice(c.id, 777, { status: 'draft' });
    await app.patch(`/api/v1/invoices/${voided.id}`, { status: 'void' }, t.token);
    await r.invoice(someoneElse.id, 777);

    const pool = await source().pool({ customerId: c.id, currency: 'usd', amount: 777, oldestFirst: false });
    expect(pool.map((x) => x.id).sort()).toEqual([...open.slice(0, COMBINATION_POOL_SIZE), ...late].map((x) => x.id).sort());

    const covering = await source().pool({ customerId: c.id, currency: 'usd', amount: 55_500, oldestFirst: true });
    // 50 oldest (50,000) + 6 more of 1,000 reach 55,500 in due-date order; no exact-amount invoice of 55,500.
    expect(covering.map((x) => x.id).sort()).toEqual(open.slice(0, 56).map((x) => x.id).sort());
  });
});
