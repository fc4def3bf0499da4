import { Client } from 'pg';
import { APP_CONFIG, AppConfig } from '../../../src/config/config';
import { FixedClock } from '../../../src/shared/domain/clock';
import { BankFormat, generateGroundTruth } from '../../support/bank-ground-truth';
import { TestApp } from '../../support/test-app';
import { BankWorld, completed, createWorld, expectCountsAddUp, postFile } from './support';

/**
 * ADR 0037: a bank import group recorded set-wise (RecordPaymentGroupCommand) ends exactly as
 * one RecordPaymentCommand per credit (BANK_IMPORT_SET_WISE=false). Two tenants, the same
 * clock, the same world created in the same order, the same file, imported each way: every
 * row the import writes (payments, applications, invoices, write-offs, ledger lines, customers'
 * figures) and every event it records, in order, with its payload, must be the same once the
 * ids (random) are replaced by what they stand for (invoice number, customer name, bank entry).
 * Small groups, so one customer's and one invoice's entries fall both within and across groups.
 */
describe('bank import: set-wise groups equal the per-entry path', () => {
  const clock = new FixedClock(new Date('2026-11-10T12:00:00Z'));
  let app: TestApp;
  let config: AppConfig;

  beforeAll(async () => {
    // One instance (passport's strategy is process-wide: two instances in one process would share
    // one database's clients); the worker reads the switch for every group, the test flips it.
    app = await TestApp.start({ clock, env: { BANK_IMPORT_POLL_MS: '50', BANK_IMPORT_GROUP_SIZE: '4', BANK_IMPORT_STREAMS: '2' } });
    config = app.app.get<AppConfig>(APP_CONFIG);
  });
  afterAll(async () => {
    config.bankImportSetWise = true;
    await app?.close();
  });

  /** Imports `file` into a new tenant with `world` on `app`; returns what it wrote, ids replaced by names. */
  async function importOn(setWise: boolean, currency: string, world: BankWorld, format: BankFormat, file: Buffer | string): Promise<unknown> {
    config.bankImportSetWise = setWise;
    const tenant = await app.createTenant('Set-wise equivalence');
    await createWorld(app, tenant, currency, world, 1); // in order: both databases get time-ordered ids alike
    const db = new Client({ connectionString: app.databaseUrl });
    await db.connect();
    try {
      const [{ seq }] = (await db.query(`SELECT coalesce(max(seq), 0) AS seq FROM outbox WHERE tenant_id = $1`, [tenant.tenant_id])).rows;
      const posted = await postFile(app, tenant, format, file);
      expect(posted.status).toBe(202);
      const done = await completed(app, tenant, posted.body.id, 180_000);
      expectCountsAddUp(done);
      return await dump(db, tenant.tenant_id, posted.body.id, seq, done);
    } finally {
      await db.end();
    }
  }

  async function dump(db: Client, tenantId: string, statementId: string, outboxSeq: string, statement: any): Promise<unknown> {
    const rows = async (sql: string) => (await db.query(sql, [tenantId])).rows;
    const labels = new Map<string, string>([[tenantId, 'tenant'], [statementId, 'statement']]);
    for (const c of await rows(`SELECT id, name FROM customers WHERE tenant_id = $1`)) labels.set(c.id, `customer:${c.name}`);
    for (const i of await rows(`SELECT id, number, line_items FROM invoices WHERE tenant_id = $1`)) {
      labels.set(i.id, `invoice:${i.number}`);
      i.line_items.forEach((line: { id: string }, n: number) => labels.set(line.id, `line:${i.number}:${n}`));
    }
    for (const p of await rows(`SELECT id, bank_entry_id FROM payments WHERE tenant_id = $1`)) labels.set(p.id, `payment:${p.bank_entry_id}`);
    for (const a of await rows(`SELECT id, payment_id, invoice_id, amount FROM payment_applications WHERE tenant_id = $1`)) {
      labels.set(a.id, `application:${labels.get(a.payment_id)}>${labels.get(a.invoice_id)}:${a.amount}`);
    }
    for (const w of await rows(`SELECT id, invoice_id, amount FROM invoice_write_offs WHERE tenant_id = $1`)) labels.set(w.id, `write_off:${labels.get(w.invoice_id)}:${w.amount}`);
    const named = (value: unknown) =>
      JSON.parse(
        JSON.stringify(value).replace(/\b(?:ten|bst|cus|inv|li|pay|app|wo)_[0-9a-z]{26}\b/g, (id) => {
          const label = labels.get(id);
          if (!label) throw new Error(`unknown id ${id}`);
          return label;
        }),
      );
    const byLabel = (list: any[]) => named(list).sort((a: any, b: any) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return {
      statement: named({ ...statement, id: statementId, created_at: null, completed_at: null }),
      payments: byLabel(
        await rows(`SELECT id AS key, customer_id, amount, amount_applied, amount_refunded, currency, payment_date::text, method, reference, remittance, status, auto_match,
                           match_status, match_rule, match_suggestions, match_write_offs, metadata, version, created_at, updated_at,
                           payer_name, payer_account, payer_bank_id, customer_source
                      FROM payments WHERE tenant_id = $1`),
      ),
      applications: byLabel(await rows(`SELECT id AS key, payment_id, invoice_id, amount, source, applied_at, reversed_at FROM payment_applications WHERE tenant_id = $1`)),
      invoices: byLabel(
        await rows(`SELECT id AS key, status, amount_paid, amount_credited, amount_written_off, amount_due, paid_at, paid_on::text, version, updated_at
                      FROM invoices WHERE tenant_id = $1`),
      ),
      write_offs: byLabel(await rows(`SELECT id AS key, invoice_id, amount, reason, created_at FROM invoice_write_offs WHERE tenant_id = $1`)),
      customers: byLabel(await rows(`SELECT id AS key, balance, version FROM customers WHERE tenant_id = $1`)),
      // Each customer's lines in the order they were posted (independent credits may be recorded in
      // concurrent streams, ADR 0037: the order between two customers' lines is not part of the outcome).
      ledger: byStream(
        named(
          await rows(`SELECT customer_id, entry_date::text, type, source_type, source_id, reference, description, debit, credit, created_at
                        FROM ledger_entries WHERE tenant_id = $1 ORDER BY seq`),
        ),
        (l) => l.customer_id,
      ),
      // Each aggregate's events in the order they were recorded (likewise).
      events: byStream(
        named(
          (
            await db.query(
              `SELECT type, aggregate_type, aggregate_id, data, created_at FROM outbox WHERE tenant_id = $1 AND seq > $2 ORDER BY seq`,
              [tenantId, outboxSeq],
            )
          ).rows,
        ),
        (e) => e.aggregate_id,
      ),
    };
  }

  /** Rows in their order within each stream (customer, aggregate), the streams by name. */
  function byStream(list: any[], stream: (row: any) => string): any[] {
    const streams = new Map<string, any[]>();
    for (const row of list) {
      const key = stream(row);
      if (!streams.has(key)) streams.set(key, []);
      streams.get(key)!.push(row);
    }
    return [...streams.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([key, rows]) => ({ key, rows }));
  }

  async function expectSame(currency: string, world: BankWorld, format: BankFormat, file: Buffer | string): Promise<any> {
    const perEntry = await importOn(false, currency, world, format, file);
    const setWise = await importOn(true, currency, world, format, file);
    expect(setWise).toEqual(perEntry);
    return setWise;
  }

  it.each(['camt.053', 'bai2', 'csv'] as BankFormat[])('%s ground truth: the same rows, and the same events and ledger lines in the same order for each invoice, payment and customer', async (format) => {
    const c = generateGroundTruth(format);
    const outcome = await expectSame(c.currency, c, format, c.file);
    // Not a vacuous comparison: the file applies, reviews, leaves unmatched, writes off.
    expect(outcome.statement).toMatchObject({ payments_created: c.entries.length });
    expect(outcome.statement.matched).toBeGreaterThan(0);
    expect(outcome.statement.needs_review).toBeGreaterThan(0);
    expect(outcome.statement.unmatched).toBeGreaterThan(0);
    expect(outcome.write_offs.length).toBeGreaterThan(0);
  }, 300_000);

  it('camt.053 ground truth in three streams (what the stream count that follows the host may choose, ADR 0056): the same rows and events', async () => {
    Object.assign(config, { bankImportStreams: 3, bankImportMaxStreams: 3 });
    try {
      const c = generateGroundTruth('camt.053');
      const outcome = await expectSame(c.currency, c, 'camt.053', c.file);
      expect(outcome.statement).toMatchObject({ payments_created: c.entries.length });
    } finally {
      Object.assign(config, { bankImportStreams: 2, bankImportMaxStreams: 2 });
    }
  }, 300_000);

  it('entries paying one invoice in shares, one customer identified by its account again and again, a short pay, a review', async () => {
    const world: BankWorld = {
      customers: [
        { key: 'shares', name: 'Shares Corp', payer_accounts: [] },
        { key: 'pool', name: 'Pool Corp', payer_accounts: ['NL02POOL0000000001'] },
        { key: 'short', name: 'Short Corp', payer_accounts: [] },
      ],
      invoices: [
        { number: 'S-1', customer: 'shares', amount: 30_000, due_date: '2026-09-01' },
        { number: 'P-1', customer: 'pool', amount: 12_000, due_date: '2026-09-01' },
        { number: 'P-2', customer: 'pool', amount: 12_000, due_date: '2026-09-15' },
        { number: 'P-3', customer: 'pool', amount: 7_500, due_date: '2026-10-01' },
        { number: 'P-4', customer: 'pool', amount: 4_500, due_date: '2026-10-02' },
        { number: 'SH-1', customer: 'short', amount: 10_000, due_date: '2026-09-20' },
      ],
    };
    const lines = [
      // one invoice paid in shares, within a group and across groups, then once more when it is paid
      ['100.00', 'Payment S-1 part 1', 'Shares Corp', '', 'E1'],
      ['100.00', 'Payment S-1 part 2', 'Shares Corp', '', 'E2'],
      ['100.00', 'Payment S-1 part 3', 'Shares Corp', '', 'E3'],
      ['50.00', 'Payment S-1 again', 'Shares Corp', '', 'E4'],
      // two invoices of 120.00: a person chooses; then P-1 by its number; then the account alone finds
      // P-2 (P-1 is paid), then P-3 + P-4 (a combination), then nothing is left
      ['120.00', 'Transfer', '', 'NL02POOL0000000001', 'E5'],
      ['120.00', 'Invoice P-1', 'Pool Corp', '', 'E6'],
      ['120.00', 'Transfer', '', 'NL02POOL0000000001', 'E7'],
      ['120.00', 'Transfer', '', 'NL02POOL0000000001', 'E8'],
      ['120.00', 'Transfer', '', 'NL02POOL0000000001', 'E9'],
      // short by 0.50, within the tolerance: written off
      ['99.50', 'SH-1', 'Short Corp', '', 'E10'],
      ['12.34', 'Nobody knows', 'Someone Else', '', 'E11'],
    ];
    const csv = ['date,amount,currency,reference,payer_name,payer_account,bank_entry_id', ...lines.map(([amount, ref, name, account, id]) => `2026-11-09,${amount},USD,${ref},${name},${account},${id}`)].join('\n');
    const outcome = await expectSame('usd', world, 'csv', csv);
    const payment = (entry: string) => outcome.payments.find((p: any) => p.key === `payment:${entry}`);
    const invoice = (number: string) => outcome.invoices.find((i: any) => i.key === `invoice:${number}`);
    // And what it is, so that the two paths agreeing on something else would not pass.
    expect(['E1', 'E2', 'E3'].map((e) => payment(e).match_status)).toEqual(['matched', 'matched', 'matched']);
    expect(invoice('S-1')).toMatchObject({ status: 'paid', amount_paid: '30000', version: 4 });
    expect(payment('E4')).toMatchObject({ match_status: 'unmatched', customer_id: 'customer:Shares Corp', customer_source: 'payer_name', version: 2 });
    expect(payment('E5')).toMatchObject({ match_status: 'needs_review', match_rule: 'exact_amount' });
    expect(payment('E6')).toMatchObject({ match_status: 'matched', match_rule: 'reference' });
    expect(payment('E7')).toMatchObject({ match_status: 'matched', match_rule: 'exact_amount' });
    expect(outcome.applications.filter((a: any) => a.payment_id === 'payment:E7').map((a: any) => a.invoice_id)).toEqual(['invoice:P-2']);
    expect(payment('E8')).toMatchObject({ match_status: 'matched', match_rule: 'combination' });
    expect(payment('E9')).toMatchObject({ match_status: 'unmatched', customer_id: 'customer:Pool Corp', customer_source: 'payer_account' });
    expect(payment('E10')).toMatchObject({ match_status: 'matched', match_write_offs: [expect.objectContaining({ invoice_id: 'invoice:SH-1', amount: 50 })] });
    expect(payment('E11')).toMatchObject({ match_status: 'unmatched', customer_id: null, version: 1 });
  }, 300_000);

  it('a manual match made while a group waits for its locks: the entry ends as POST /payments would end it then, nothing paid twice', async () => {
    config.bankImportSetWise = true;
    const tenant = await app.createTenant('Set-wise race');
    const world: BankWorld = {
      customers: [{ key: 'race', name: 'Race Corp', payer_accounts: ['NL03RACE0000000001'] }],
      invoices: [
        { number: 'R-1', customer: 'race', amount: 10_000, due_date: '2026-09-01' },
        { number: 'R-2', customer: 'race', amount: 10_000, due_date: '2026-09-15' },
      ],
    };
    await createWorld(app, tenant, 'usd', world, 1);
    const invoices = (await app.get('/api/v1/invoices?limit=10', tenant.token)).body.data as any[];
    const r1 = invoices.find((i) => i.number === 'R-1');
    const customerId = r1.customer_id;

    // This connection holds Race Corp's matching lock: the group reads R-1 (open), then waits for
    // the lock (its payer identifies Race Corp) — the state the test then changes under it.
    const holder = new Client({ connectionString: app.databaseUrl });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`automatch:${tenant.tenant_id}:${customerId}`]);
      const [{ pid }] = (await holder.query(`SELECT pg_backend_pid() AS pid`)).rows;
      const csv = ['date,amount,currency,reference,payer_name,payer_account,bank_entry_id', '2026-11-09,100.00,USD,Invoice R-1,,NL03RACE0000000001,RACE-1'].join('\n');
      const posted = await postFile(app, tenant, 'csv', csv);
      expect(posted.status).toBe(202);
      const deadline = Date.now() + 60_000;
      while ((await holder.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))`, [pid])).rows[0].n === 0) {
        if (Date.now() > deadline) throw new Error('the import never waited for the matching lock');
        await new Promise((r) => setTimeout(r, 20));
      }
      // Meanwhile a person pays R-1 by hand (no matching lock involved).
      const manual = await app.post('/api/v1/payments', { customer_id: customerId, amount: 10_000, auto_match: 'none', reference: 'counter' }, tenant.token);
      expect(manual.status).toBe(201);
      expect((await app.post(`/api/v1/payments/${manual.body.id}/match`, { applications: [{ invoice_id: r1.id }] }, tenant.token)).status).toBe(200);
      await holder.query('COMMIT');

      const done = await completed(app, tenant, posted.body.id);
      expect(done).toMatchObject({ payments_created: 1, matched: 1, errors: [] });
      // R-1 was paid by then: the entry is identified by its payer account and takes R-2 (exact amount),
      // as POST /payments would have done at that moment; R-1 was not paid twice.
      const payment = (await app.get(`/api/v1/payments?limit=10`, tenant.token)).body.data.find((p: any) => p.bank_entry_id === 'RACE-1');
      expect(payment).toMatchObject({ customer_id: customerId, match: expect.objectContaining({ status: 'matched', rule: 'exact_amount' }) });
      expect(payment.applications.map((a: any) => a.invoice_number)).toEqual(['R-2']);
      const after = (await app.get(`/api/v1/invoices/${r1.id}`, tenant.token)).body;
      expect(after).toMatchObject({ status: 'paid', amount_paid: 10_000 });
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await holder.end();
    }
  }, 120_000);
});
