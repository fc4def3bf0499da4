import { Client } from 'pg';
import { CUSTOMER_FIGURES_AT_COMMIT } from '../../../src/modules/customers/infrastructure/customer-figures.sql';
import { TestApp, TestTenant } from '../../support/test-app';
import { Receivables } from '../payments/support';

/**
 * ADR 0051: the commit-time update of an opted-in transaction (ADR 0045) sums each customer's moves
 * and lists its open amounts in one aggregate: no join of the customers' sums to their lists, which
 * its function's settings (no hash or merge join) made a nested loop of every customer against every
 * other. The figures it leaves are those of test/e2e/customers/figures-at-commit.e2e-spec.ts.
 */
describe("the commit-time update of a transaction's customers", () => {
  let app: TestApp;
  let t: TestTenant;
  let r: Receivables;

  beforeAll(async () => {
    app = await TestApp.start({ env: { WORKERS_ENABLED: 'false' } });
    t = await app.createTenant();
    r = new Receivables(app, t);
  });
  afterAll(() => app.close());

  it('compares no customer with another', async () => {
    const invoices: string[] = [];
    for (let i = 0; i < 8; i++) {
      const c = await r.customer();
      for (const due of ['2026-07-10', '2026-08-01']) invoices.push((await r.invoice(c.id, 1_000 + i, { issue_date: '2026-06-01', due_date: due })).id);
    }
    // The function's statement, planned with its settings, run on the moves of an opted-in transaction
    // (its invoices re-dated: open amounts and due dates to list for eight customers), rolled back.
    const [{ src }] = await app.query(`SELECT prosrc AS src FROM pg_proc WHERE proname = 'customer_figure_moves_apply'`);
    const statement = /BEGIN\s*([\s\S]*?);\s*RETURN NULL/.exec(src)![1];
    const client = new Client({ connectionString: app.databaseUrl });
    await client.connect();
    try {
      const redate = (days: number) =>
        client.query(`UPDATE invoices SET due_date = due_date + $3::int WHERE tenant_id = $1 AND id = ANY($2::text[])`, [t.tenant_id, invoices, days]);
      // A first opted-in transaction makes the session's table of moves. The statement runs at trigger
      // depth 1 at commit; here it runs at the top level, past the table's guard.
      await client.query(`BEGIN`);
      await client.query(`SELECT ${CUSTOMER_FIGURES_AT_COMMIT}`);
      await redate(1);
      await client.query(`COMMIT`);
      await client.query(`ALTER TABLE pg_temp.customer_figure_moves DISABLE TRIGGER customer_figure_moves_guard`);
      await client.query(`BEGIN`);
      await client.query(`SELECT ${CUSTOMER_FIGURES_AT_COMMIT}`);
      await redate(-1);
      await client.query(`SET LOCAL enable_seqscan = off; SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off`);
      const [{ 'QUERY PLAN': [{ Plan: plan }] }] = (await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${statement}`)).rows;
      const nodes = (node: any): any[] => [node, ...(node.Plans ?? []).flatMap(nodes)];
      const updated = nodes(plan).find((n) => n['Node Type'] === 'Nested Loop' && n.Plans.some((p: any) => p['Relation Name'] === 'customers' && p['Alias'] === 'c'));
      expect(updated['Actual Rows']).toBe(8);
      // Joined (a nested loop: no hash or merge join in the function), each customer's sums were compared
      // with the other customers' lists: 28 rows removed by the join filter for eight.
      expect(nodes(plan).reduce((sum, n) => sum + (n['Rows Removed by Join Filter'] ?? 0), 0)).toBe(0);
    } finally {
      await client.query(`ROLLBACK`).catch(() => undefined);
      await client.end();
    }
  });
});
