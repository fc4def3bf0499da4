import { TypeormBankStatementRepository } from '../../../src/modules/bank-statements/infrastructure/typeorm-bank-statement.repository';
import { UnitOfWork } from '../../../src/shared/infrastructure/database/unit-of-work';
import { OutboxWriter } from '../../../src/shared/infrastructure/outbox/outbox.writer';
import { TestApp, TestTenant } from '../../support/test-app';
import { completed, expectCountsAddUp, postFile } from './support';

/**
 * The import's own rows per entry (ADR 0046): what each part of a window writes besides the
 * payments. Rows that must not be written are refused by a trigger the test installs, so a write
 * that comes back fails the import's groups instead of passing unseen.
 */
describe('bank import bookkeeping', () => {
  let app: TestApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    // Small groups and two streams: several windows, several parts each, recorded concurrently.
    app = await TestApp.start({ env: { BANK_IMPORT_POLL_MS: '50', BANK_IMPORT_GROUP_SIZE: '4', BANK_IMPORT_STREAMS: '2' } });
    tenant = await app.createTenant();
    // The entries' statistics are the tests' to set (ANALYZE where one says so), not autovacuum's
    // whenever it comes round: a plan test must not depend on when that was (this file's database only).
    await app.query(`ALTER TABLE bank_statement_entries SET (autovacuum_enabled = false)`);
  });
  afterAll(() => app.close());

  const csv = (n: number, tag: string) =>
    ['date,amount,currency,reference,payer_name,payer_account,bank_entry_id', ...Array.from({ length: n }, (_, i) => `2026-11-0${(i % 9) + 1},${i + 1}.00,USD,${tag} ${i},Payer ${tag} ${i},,${tag}-${i}`)].join(
      '\n',
    );

  /** Runs `work` with `table` refusing `UPDATE`s (`when`: those of them; a trigger of the test's own), removed after. */
  async function refusingUpdates<T>(table: string, work: () => Promise<T>, when = 'true'): Promise<T> {
    await app.query(`CREATE FUNCTION test_refuse_update() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'test: % updated', TG_TABLE_NAME; END $$`);
    await app.query(`CREATE TRIGGER test_refuse_update BEFORE UPDATE ON ${table} FOR EACH ROW WHEN (${when}) EXECUTE FUNCTION test_refuse_update()`);
    try {
      return await work();
    } finally {
      await app.query(`DROP TRIGGER test_refuse_update ON ${table}`);
      await app.query(`DROP FUNCTION test_refuse_update()`);
    }
  }

  it('writes each identity key once, when its entry claims it; the entry names its payment', async () => {
    const done = await refusingUpdates('bank_entry_keys', async () => {
      const posted = await postFile(app, tenant, 'csv', csv(30, 'KEYS'));
      expect(posted.status).toBe(202);
      return completed(app, tenant, posted.body.id, 30_000);
    });
    expect(done).toMatchObject({ entries_total: 30, payments_created: 30, payments_existing: 0, errors: [] });
    expectCountsAddUp(done);
    // Every key leads to its entry, and the entry to its payment (the bank entry id it was made from).
    const [{ linked }] = await app.query(
      `SELECT count(*)::int AS linked FROM bank_entry_keys k
         JOIN bank_statement_entries e ON e.tenant_id = k.tenant_id AND e.statement_id = k.statement_id AND e.position = k.position
         JOIN payments p ON p.tenant_id = e.tenant_id AND p.id = e.payment_id
        WHERE k.tenant_id = $1 AND k.statement_id = $2 AND e.status = 'created' AND k.entry_key = 'id:' || p.bank_entry_id`,
      [tenant.tenant_id, done.id],
    );
    expect(linked).toBe(30);
  });

  it('keeps the parts\' counts off the import row until it completes: no stream waits for another\'s commit there', async () => {
    // Refused: any update of a processing import's counts after its file was staged.
    const counts = ['entries_processed', 'payments_created', 'payments_existing', 'matched', 'needs_review', 'unmatched', 'errors'];
    const when = `OLD.entries_total = NEW.entries_total AND NEW.status = 'processing' AND (${counts.map((c) => `OLD.${c} IS DISTINCT FROM NEW.${c}`).join(' OR ')})`;
    const done = await refusingUpdates(
      'bank_statements',
      async () => {
        const posted = await postFile(app, tenant, 'csv', `${csv(30, 'TALLY')}\n2026-11-01,0.001,USD,too precise,Payer,,TALLY-BAD`);
        expect(posted.status).toBe(202);
        return completed(app, tenant, posted.body.id, 30_000);
      },
      when,
    );
    expect(done).toMatchObject({ entries_total: 31, entries_processed: 31, payments_created: 30, payments_existing: 0, matched: 0, unmatched: 30 });
    expectCountsAddUp(done);
    // Folded at completion: nothing left beside the row, and GET shows what the row holds.
    expect(await app.query(`SELECT 1 FROM bank_statement_tallies WHERE tenant_id = $1 AND statement_id = $2`, [tenant.tenant_id, done.id])).toEqual([]);
    const [row] = await app.query(`SELECT entries_processed, payments_created, unmatched, errors FROM bank_statements WHERE tenant_id = $1 AND id = $2`, [tenant.tenant_id, done.id]);
    expect(row).toEqual({ entries_processed: 31, payments_created: 30, unmatched: 30, errors: done.errors });
  });

  it('shows a processing import\'s progress from its parts\' tallies, errors in file order', async () => {
    const [{ id }] = await app.query(
      `INSERT INTO bank_statements (tenant_id, id, format, status, entries_total, entries_skipped, entries_processed, errors, created_at)
       VALUES ($1, 'bst_01jz0000000000000000000000', 'csv', 'processing', 10, 1, 2, '[{"entry": 1, "code": "invalid_amount", "message": "staged"}]', now())
       RETURNING id`,
      [tenant.tenant_id],
    );
    // Two parts' tallies, inserted out of file order (streams commit in any order).
    await app.query(
      `INSERT INTO bank_statement_tallies (tenant_id, statement_id, first_position, entries_processed, payments_created, payments_existing, matched, needs_review, unmatched, errors)
       VALUES ($1, $2, 7, 3, 2, 0, 1, 0, 1, '[{"entry": 9, "code": "invalid_entry", "message": "b"}]'),
              ($1, $2, 3, 2, 1, 1, 0, 1, 0, '[{"entry": 4, "code": "invalid_entry", "message": "a"}]')`,
      [tenant.tenant_id, id],
    );
    const shown = (await app.get(`/api/v1/bank-statements/${id}`, tenant.token)).body;
    expect(shown).toMatchObject({ status: 'processing', entries_total: 10, entries_processed: 7, payments_created: 3, payments_existing: 1, entries_skipped: 1, matched: 1, needs_review: 1, unmatched: 1 });
    expect(shown.errors.map((e: any) => e.entry)).toEqual([1, 4, 9]);
    const listed = (await app.get(`/api/v1/bank-statements?status=processing`, tenant.token)).body.data.find((s: any) => s.id === id);
    expect(listed).toEqual(shown);
    await app.query(`DELETE FROM bank_statement_tallies WHERE tenant_id = $1 AND statement_id = $2`, [tenant.tenant_id, id]);
    await app.query(`DELETE FROM bank_statements WHERE tenant_id = $1 AND id = $2`, [tenant.tenant_id, id]);
  });

  it('renews a window\'s lease without waiting for the WAL flush at its commit; a group\'s own renewal keeps it', async () => {
    const uow = new UnitOfWork(app.dataSource, new OutboxWriter());
    const repository = new TypeormBankStatementRepository(uow);
    const id = 'bst_01jz0000000000000000000001';
    // Leased for an hour: an expired lease would let the app's own worker take the import over meanwhile.
    await app.query(
      `INSERT INTO bank_statements (tenant_id, id, format, status, entries_total, lease_owner, lease_until, created_at)
       VALUES ($1, $2, 'csv', 'processing', 0, 'worker-test', now() + interval '1 hour', now())`,
      [tenant.tenant_id, id],
    );
    const renewed = (alone: boolean) =>
      uow.run(async () => {
        // (The test database may run without waiting for flushes: the transaction starts waiting.)
        await uow.query(`SELECT set_config('synchronous_commit', 'on', true)`);
        const held = await repository.renewLease(tenant.tenant_id, id, 'worker-test', 30, alone);
        const [{ setting }] = await uow.query(`SELECT current_setting('synchronous_commit') AS setting`);
        return { held, setting };
      });
    expect(await renewed(true)).toEqual({ held: true, setting: 'off' });
    expect(await renewed(false)).toEqual({ held: true, setting: 'on' });
    // A lease lost is still told (nothing renewed), whichever way.
    await app.query(`UPDATE bank_statements SET lease_owner = 'worker-other' WHERE tenant_id = $1 AND id = $2`, [tenant.tenant_id, id]);
    expect((await renewed(true)).held).toBe(false);
    await app.query(`DELETE FROM bank_statements WHERE tenant_id = $1 AND id = $2`, [tenant.tenant_id, id]);
  });

  it('records a staged entry in place (a HOT update: no index entry), and reads the pending ones from where the worker has reached', async () => {
    const uow = new UnitOfWork(app.dataSource, new OutboxWriter());
    const repository = new TypeormBankStatementRepository(uow);
    const id = 'bst_01jz0000000000000000000002';
    // Leased by no worker of the app (it must not take this import).
    await app.query(
      `INSERT INTO bank_statements (tenant_id, id, format, status, entries_total, lease_owner, lease_until, created_at)
       VALUES ($1, $2, 'camt.053', 'processing', 60, 'worker-test', now() + interval '1 hour', now())`,
      [tenant.tenant_id, id],
    );
    // Entries as wide as a camt.053's: payer, account, free text, two remittance lines.
    const credits = Array.from({ length: 60 }, (_, i) => ({
      position: i + 1,
      account: 'DE89370400440532013000',
      key: `id:HOT-2026-11-05-${String(i).padStart(6, '0')}-ABCDEFGHIJKLMNOP`,
      bankEntryId: `HOT-2026-11-05-${String(i).padStart(6, '0')}-ABCDEFGHIJKLMNOP`,
      amount: 125_000 + i,
      currency: 'eur',
      bookingDate: '2026-11-05',
      payer: { name: `Müller & Söhne Handelsgesellschaft mbH ${i}`, account: `DE4450010517540732${String(i).padStart(4, '0')}`, bankId: 'INGDDEFFXXX' },
      reference: `Rechnung INV-2026-${String(i).padStart(6, '0')} und INV-2026-${String(i + 1000).padStart(6, '0')} Kundennummer 4711-${i}`,
      remittance: [
        { invoiceNumber: `INV-2026-${String(i).padStart(6, '0')}`, amount: 100_000 },
        { invoiceNumber: `INV-2026-${String(i + 1000).padStart(6, '0')}`, amount: 25_000 + i },
      ],
      method: 'other' as const,
    }));
    await uow.run(() => repository.stage(tenant.tenant_id, id, credits));

    // Read from a position on: what lies before it is not read again.
    expect((await uow.run(() => repository.pending(tenant.tenant_id, id, 5, undefined, 31))).map((c) => c.position)).toEqual([31, 32, 33, 34, 35]);

    const updates = await uow.run(async () => {
      await repository.recordProcessed(
        tenant.tenant_id,
        id,
        credits.map((c) => ({ position: c.position, paymentId: null, matchStatus: null })),
      );
      const [row] = await uow.query(`SELECT n_tup_upd::int AS updated, n_tup_hot_upd::int AS hot FROM pg_stat_xact_user_tables WHERE relname = 'bank_statement_entries'`);
      return row;
    });
    // (The view may add this connection's earlier updates not yet reported: all of them HOT too.)
    expect(updates.updated).toBeGreaterThanOrEqual(60);
    expect(updates.hot).toBe(updates.updated);
    expect(await uow.run(() => repository.pending(tenant.tenant_id, id, 5))).toEqual([]);
    await app.query(`DELETE FROM bank_statement_tallies WHERE tenant_id = $1 AND statement_id = $2`, [tenant.tenant_id, id]);
  });

  it('marks a part\'s entries by their keys, whatever join the planner picks: no other entry of the import is read', async () => {
    const uow = new UnitOfWork(app.dataSource, new OutboxWriter());
    const repository = new TypeormBankStatementRepository(uow);
    const id = 'bst_01jz0000000000000000000003';
    await app.query(
      `INSERT INTO bank_statements (tenant_id, id, format, status, entries_total, lease_owner, lease_until, created_at)
       VALUES ($1, $2, 'csv', 'processing', 2000, 'worker-test', now() + interval '1 hour', now())`,
      [tenant.tenant_id, id],
    );
    const credits = Array.from({ length: 2000 }, (_, i) => ({
      position: i + 1,
      account: '',
      key: `id:PLAN-${i}`,
      bankEntryId: `PLAN-${i}`,
      amount: 100 + i,
      currency: 'usd',
      bookingDate: '2026-11-05',
      payer: { name: `Payer ${i}`, account: null, bankId: null },
      reference: null,
      remittance: [],
      method: 'other' as const,
    }));
    /**
     * What marking `positions` reads of the entries, under a join that reads one side whole (as a plan
     * made on stale statistics may pick one), planned afresh or taken from the connection's cache
     * (`mode`: the statement is prepared per pooled connection, and whether a connection has run it
     * often enough for a generic plan depends on which connections the worker happened to use).
     */
    const marking = (mode: 'force_custom_plan' | 'force_generic_plan', positions: number[]) =>
      uow.run(async () => {
        await uow.query(`SELECT set_config('enable_nestloop', 'off', true), set_config('plan_cache_mode', $1, true)`, [mode]);
        const reads = async () => {
          const [row] = await uow.query(
            `SELECT (coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0))::int AS n FROM pg_stat_xact_user_tables WHERE relname = 'bank_statement_entries'`,
          );
          return row.n;
        };
        const before = await reads();
        await repository.recordProcessed(tenant.tenant_id, id, positions.map((position) => ({ position, paymentId: null, matchStatus: null })));
        const read = (await reads()) - before;
        if (read <= 8) return { read };
        // Say which plan read them (the named statement just run on this connection).
        const [{ name }] = await uow.query(`SELECT name FROM pg_prepared_statements WHERE statement LIKE 'WITH done AS (%UPDATE bank_statement_entries%'`);
        const plan = await uow.query(`EXPLAIN (COSTS OFF) EXECUTE ${name}('${tenant.tenant_id}', '${id}', '{1}', '{NULL}', 0, 1, 0, 0, 0, '[]', '{f}')`);
        return { read, mode, plan: plan.map((line: any) => line['QUERY PLAN']) };
      });
    // The entries staged without statistics (as the worker meets them), then with statistics made
    // before they were staged (stale): each planned afresh and as a generic plan.
    const reads: object[] = [];
    for (const statistics of ['none', 'stale']) {
      if (statistics === 'stale') {
        await app.query(`DELETE FROM bank_statement_tallies WHERE tenant_id = $1 AND statement_id = $2`, [tenant.tenant_id, id]);
        await app.query(`DELETE FROM bank_statement_entries WHERE tenant_id = $1 AND statement_id = $2`, [tenant.tenant_id, id]);
        await app.query(`ANALYZE bank_statement_entries`);
      }
      await uow.run(() => repository.stage(tenant.tenant_id, id, credits));
      reads.push({ statistics, ...(await marking('force_custom_plan', [7, 700, 1400, 1999])) });
      reads.push({ statistics, ...(await marking('force_generic_plan', [8, 701, 1401, 1998])) });
    }
    // Four entries marked each time: nothing else of the import read (a plan that reads them all is shown).
    expect(reads.filter((r: any) => r.read > 8)).toEqual([]);
    await app.query(`DELETE FROM bank_statement_tallies WHERE tenant_id = $1 AND statement_id = $2`, [tenant.tenant_id, id]);
  });
});
