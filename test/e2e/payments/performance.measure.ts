/**
 * Timings for the payments issue's report, printed, never asserted (run on demand):
 *   npx jest test/e2e/payments/performance.measure.ts --testMatch '**\/*.measure.ts'
 * - recording a payment for a customer with 10,000 open invoices, per matching outcome;
 * - the combination search alone on its worst inputs (CPU per payment);
 * - a 12-month statement with 5,000 lines as JSON and PDF.
 */
import { performance } from 'node:perf_hooks';
import { newId } from '../../../src/shared/domain/ids';
import { findSmallestCombinations } from '../../../src/modules/payments/domain/matching/combination-search';
import { TestApp } from '../../support/test-app';
import { pdfPages } from '../../support/pdf-text';
import { Receivables } from './support';

jest.setTimeout(600_000);

function stats(ms: number[]) {
  const s = [...ms].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return `median ${q(0.5).toFixed(1)} ms, p95 ${q(0.95).toFixed(1)} ms, max ${s[s.length - 1].toFixed(1)} ms (n=${s.length})`;
}

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const t = performance.now();
  const result = await work();
  return [result, performance.now() - t];
}

describe('performance (printed)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await TestApp.start();
  });
  afterAll(() => app.close());

  it('combination search CPU on worst-case pools of 50', () => {
    const cases: [string, number[], number][] = [
      ['no set fits (full search)', Array.from({ length: 50 }, (_, i) => 2 * i + 1_001), 10_000],
      ['all equal (stops at 2nd)', Array.from({ length: 50 }, () => 100), 500],
      ['unique 5-set', Array.from({ length: 50 }, (_, i) => 2 ** i), 1 + 2 + 4 + 8 + 2 ** 49],
      ['random', Array.from({ length: 50 }, (_, i) => ((i * 7919) % 5000) + 1), 12_345],
    ];
    for (const [name, amounts, target] of cases) {
      for (let i = 0; i < 20; i++) findSmallestCombinations(amounts, target, { maxSolutions: 10 }); // warm up
      const runs = Array.from({ length: 200 }, () => {
        const t = performance.now();
        findSmallestCombinations(amounts, target, { maxSolutions: 10 });
        return performance.now() - t;
      });
      const { steps, sets } = findSmallestCombinations(amounts, target, { maxSolutions: 10 });
      console.log(`combination search, ${name}: ${stats(runs)}; ${steps} steps, ${sets.length} sets`);
    }
  });

  it('records payments for a customer with 10,000 open invoices', async () => {
    const tenant = await app.createTenant('Bulk');
    const r = new Receivables(app, tenant);
    // Bulk-load open invoices in SQL (the API would take minutes): amounts 100,000 + 7·i, so
    // every amount is distinct and only chosen payments fit.
    const bulkCustomer = async (name: string) => {
      const customer = await r.customer({ name });
      const ids = Array.from({ length: 10_000 }, () => newId('inv'));
      await app.query(
        `INSERT INTO invoices (tenant_id, id, number, customer_id, status, currency, issue_date, due_date, line_items,
                               subtotal, discount_total, tax_total, total, amount_paid, version, created_at, updated_at)
         SELECT $1, ids.id, $4 || lpad(ids.n::text, 6, '0'), $2, 'open', 'usd',
                date '2025-01-01' + (ids.n % 365)::int, date '2025-02-01' + (ids.n % 365)::int, '[]'::jsonb,
                100000 + 7 * ids.n, 0, 0, 100000 + 7 * ids.n, 0, 1, now(), now()
           FROM unnest($3::text[]) WITH ORDINALITY AS ids (id, n)`,
        [tenant.tenant_id, customer.id, ids, name.slice(0, 4).toUpperCase() + '-'],
      );
      return customer;
    };
    const customer = await bulkCustomer('Bulk Buyer');
    const oldestFirstCustomer = await bulkCustomer('Oldf Buyer');
    // The 40 oldest get amounts 30,000,001 + 2^k: every pair of them has a sum of its own, so
    // each combination payment below has exactly one answer.
    await app.query(
      `UPDATE invoices i SET total = 30000001 + (2::bigint ^ o.k)::bigint, subtotal = 30000001 + (2::bigint ^ o.k)::bigint
         FROM (SELECT id, row_number() OVER (ORDER BY due_date, id) - 1 AS k FROM invoices
                WHERE tenant_id = $1 AND customer_id = $2 ORDER BY due_date, id LIMIT 40) o
        WHERE i.tenant_id = $1 AND i.id = o.id`,
      [tenant.tenant_id, customer.id],
    );
    await app.query('ANALYZE invoices');
    const oldest = (
      await app.query<{ total: string }>(`SELECT total FROM invoices WHERE tenant_id = $1 AND customer_id = $2 ORDER BY due_date, id LIMIT 40`, [
        tenant.tenant_id,
        customer.id,
      ])
    ).map((row) => Number(row.total));

    const scenarios: [string, (i: number) => Record<string, unknown>][] = [
      ['oldest_first across ~100 invoices (second customer)', () => ({ customer_id: oldestFirstCustomer.id, amount: 10_300_000, auto_match: 'oldest_first' })],
      ['exact_amount (unique amount due)', (i) => ({ amount: 100_000 + 7 * (5_000 + i) })],
      ['combination (two of the 50 oldest)', (i) => ({ amount: oldest[2 * i] + oldest[2 * i + 1] })],
      ['unmatched (exact miss + full combination search)', () => ({ amount: 3 })],
      ['reference naming 3 invoices', (i) => ({ amount: 400_000, reference: `BULK-${String(100 + i).padStart(6, '0')} #${200 + i} inv ${300 + i}` })],
    ];
    for (const [name, body] of scenarios) {
      const times: number[] = [];
      let last: any;
      for (let i = 0; i < 15; i++) {
        const [res, ms] = await timed(() => r.payment({ customer_id: customer.id, ...body(i) }));
        if (res.status !== 201) throw new Error(res.text);
        last = res.body;
        if (i > 0) times.push(ms); // first one warms the plan cache
      }
      console.log(`POST /payments, 10,000 open invoices, ${name}: ${stats(times)}; last: ${last.match.status}/${last.match.rule}, ${last.applications.length} applications`);
    }
  });

  it('renders a 12-month statement with 5,000 lines as JSON and PDF', async () => {
    const tenant = await app.createTenant('Statements');
    const r = new Receivables(app, tenant);
    const customer = await r.customer({ name: 'Five Thousand Lines Ltd', billing_address: { line1: '1 Long Road', city: 'Leeds', country: 'GB' } });
    await app.query(
      `INSERT INTO ledger_entries (tenant_id, id, customer_id, entry_date, type, source_type, source_id, reference, description, debit, credit, created_at)
       SELECT $1, 'led_' || n, $2, date '2025-01-01' + ((n - 1) * 365 / 5000),
              CASE WHEN n % 3 = 0 THEN 'payment' ELSE 'invoice' END, CASE WHEN n % 3 = 0 THEN 'payment' ELSE 'invoice' END,
              'src_' || n, 'INV-' || lpad(n::text, 6, '0'),
              CASE WHEN n % 3 = 0 THEN 'Payment received (ach)' ELSE 'Invoice INV-' || lpad(n::text, 6, '0') END,
              CASE WHEN n % 3 = 0 THEN 0 ELSE 10000 + n END, CASE WHEN n % 3 = 0 THEN 15000 ELSE 0 END, now()
         FROM generate_series(1, 5000) AS n`,
      [tenant.tenant_id, customer.id],
    );
    const path = `/api/v1/customers/${customer.id}/statement?from=2025-01-01&to=2025-12-31`;
    const json: number[] = [];
    const pdf: number[] = [];
    let size = 0;
    let body: Buffer = Buffer.alloc(0);
    for (let i = 0; i < 6; i++) {
      const [res, ms] = await timed(() => app.get(path, tenant.token));
      if (res.body.lines.length !== 5_000) throw new Error(`expected 5000 lines, got ${res.body.lines.length}`);
      size = res.text.length;
      if (i > 0) json.push(ms);
      const [buf, pms] = await timed(async () => {
        const resp = await fetch(`${app.baseUrl}${path}`, { headers: { authorization: `Bearer ${tenant.token}`, accept: 'application/pdf' } });
        return Buffer.from(await resp.arrayBuffer());
      });
      body = buf;
      if (i > 0) pdf.push(pms);
    }
    const pages = (await pdfPages(body)).length;
    console.log(`statement 5,000 lines, JSON: ${stats(json)}; ${(size / 1024).toFixed(0)} KiB`);
    console.log(`statement 5,000 lines, PDF: ${stats(pdf)}; ${(body.length / 1024).toFixed(0)} KiB, ${pages} pages`);
  });
});
