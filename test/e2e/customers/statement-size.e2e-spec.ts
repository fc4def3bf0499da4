import { get } from 'node:http';
import { FixedClock } from '../../../src/shared/domain/clock';
import { expectProblem, TestApp, TestTenant } from '../../support/test-app';
import { pdfPages } from '../../support/pdf-text';

const LINES = 10_001;
const PER_DAY = 120;

/**
 * Statements cost bounded memory whatever the customer's history: JSON and CSV stream their lines
 * from a cursor, a PDF holds at most 5,000 lines (a 400 beyond, saying how to narrow the period).
 * Sizes only, no timings (figures: docs/benchmarks.md).
 */
describe('customer statement of a long history', () => {
  let app: TestApp;
  let tenant: TestTenant;
  let customerId: string;

  beforeAll(async () => {
    app = await TestApp.start({ clock: new FixedClock(new Date('2026-06-15T12:00:00Z')) });
    tenant = await app.createTenant('Bulk Co');
    customerId = (await app.post('/api/v1/customers', { name: 'Busy Buyer', currency: 'usd' }, tenant.token)).body.id;
    // 10,001 ledger lines, 120 a day from 2026-01-01 (to 2026-03-25), seeded with SQL. The database keeps the
    // customer's balance by a row trigger (10,001 updates of one row: minutes); the seed sets it once, with
    // the triggers off for its transaction, to the same Σ ledger the trigger would reach.
    await app.dataSource.transaction(async (m) => {
      await m.query(`SET LOCAL session_replication_role = replica`);
      await m.query(
        `WITH entries AS (
           INSERT INTO ledger_entries (tenant_id, id, customer_id, entry_date, type, source_type, source_id, reference, description, debit, credit, created_at)
           SELECT $1, 'led_bulk_' || g, $2, DATE '2026-01-01' + (g / $4)::int, 'invoice', 'invoice', 'inv_bulk_' || g, 'B-' || g, 'Bulk line ' || g, 100 + g % 7, 0, now()
             FROM generate_series(0, $3 - 1) g
           RETURNING debit - credit AS delta)
         UPDATE customers SET balance = balance + (SELECT SUM(delta) FROM entries) WHERE tenant_id = $1 AND id = $2`,
        [tenant.tenant_id, customerId, LINES, PER_DAY],
      );
    });
  });
  afterAll(() => app.close());

  const path = (query = '?from=2026-01-01&to=2026-06-15') => `/api/v1/customers/${customerId}/statement${query}`;
  const expectedClosing = Array.from({ length: LINES }, (_, g) => 100 + (g % 7)).reduce((a, b) => a + b, 0);

  it('refuses a PDF of more than 5,000 lines with a 400 that names the limit and a period that fits', async () => {
    const res = await app.get(path(), tenant.token, { accept: 'application/pdf' });
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors).toEqual([expect.objectContaining({ field: 'to', code: 'statement_too_long' })]);
    // Lines 5,000 and 5,001 are both of 2026-02-11: the period that fits ends the day before.
    expect(res.body.detail).toContain('10,001 lines');
    expect(res.body.detail).toContain('at most 5,000');
    expect(res.body.detail).toContain('from=2026-01-01&to=2026-02-10');
    const fits = await app.get(path('?from=2026-01-01&to=2026-02-10'), tenant.token, { accept: 'text/csv' });
    expect(fits.text.trim().split('\r\n').length - 2).toBeLessThanOrEqual(5_000);
    expect(res.body.detail).toContain('CSV or JSON');
  });

  it('streams the JSON of all the lines from a cursor, with the same figures as a short statement', async () => {
    const res = await app.get(path(), tenant.token);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('transfer-encoding')).toBe('chunked'); // written as read, not buffered whole
    const s = res.body;
    expect(s.lines).toHaveLength(LINES);
    expect(s).toMatchObject({ opening_balance: 0, total_debits: expectedClosing, total_credits: 0, closing_balance: expectedClosing, unapplied_credit: 0 });
    expect(s.lines[0]).toEqual({ date: '2026-01-01', type: 'invoice', reference: 'B-0', description: 'Bulk line 0', debit: 100, credit: 0, balance: 100 });
    expect(s.lines.at(-1)).toMatchObject({ date: '2026-03-25', reference: `B-${LINES - 1}`, balance: expectedClosing });
    expect(Object.keys(s)).toEqual(['customer', 'currency', 'from', 'to', 'opening_balance', 'lines', 'total_debits', 'total_credits', 'closing_balance', 'aging', 'unapplied_credit', 'generated_at']);
    // A short period of the same customer (one statement, no cursor) agrees with the long one.
    const short = (await app.get(path('?from=2026-03-25&to=2026-06-15'), tenant.token)).body;
    expect(short.lines).toEqual(s.lines.slice(-41));
    expect(short.opening_balance).toBe(s.lines.at(-42).balance);
  });

  it('streams the CSV of all the lines', async () => {
    const res = await app.get(path(), tenant.token, { accept: 'text/csv' });
    expect(res.status).toBe(200);
    expect(res.headers.get('transfer-encoding')).toBe('chunked');
    const rows = res.text.trim().split('\r\n');
    expect(rows).toHaveLength(LINES + 2); // header, opening balance, lines
    expect(rows[1]).toBe('2026-01-01,opening_balance,,Opening balance,,,0,usd,,,0.00');
    expect(rows.at(-1)).toBe(`2026-03-25,invoice,B-${LINES - 1},Bulk line ${LINES - 1},${100 + ((LINES - 1) % 7)},0,${expectedClosing},usd,1.0${(LINES - 1) % 7},0.00,${(expectedClosing / 100).toFixed(2)}`);
  });

  it('serves several long statements at once, and one a client abandons frees its place', async () => {
    // The first rows arrive; then the client goes away (its connection closed).
    await new Promise<void>((resolve, reject) => {
      const req = get(`${app.baseUrl}${path()}`, { headers: { authorization: `Bearer ${tenant.token}`, accept: 'text/csv' } }, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', (error) => (req.destroyed ? undefined : reject(error)));
    });
    const results = await Promise.all([
      app.get(path(), tenant.token),
      app.get(path(), tenant.token, { accept: 'text/csv' }),
      app.get(path('?from=2026-02-01&to=2026-03-31'), tenant.token),
      app.get(path(), tenant.token),
    ]);
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(results[0].body.lines).toHaveLength(LINES);
    expect(results[2].body.lines).toHaveLength(LINES - 31 * PER_DAY); // 2026-02-01 on
    expect(results[3].body.closing_balance).toBe(expectedClosing);
  });

  it('prints a PDF read from the cursor, numbering every page of the total', async () => {
    const res = await fetch(`${app.baseUrl}${path('?from=2026-01-01&to=2026-01-15')}`, { headers: { authorization: `Bearer ${tenant.token}`, accept: 'application/pdf' } });
    expect(res.status).toBe(200);
    const pages = await pdfPages(Buffer.from(await res.arrayBuffer()));
    expect(pages.length).toBeGreaterThan(20); // 1,800 lines
    pages.forEach((text, i) => expect(text).toContain(`Page ${i + 1} of ${pages.length}`));
    expect(pages.slice(-2).join('\n')).toContain('B-1799');
    expect(pages.at(-1)).toContain('Aging as of 2026-01-15');
  });
});
