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
  });
  afterAll(() => app.close());

  const csv = (n: number, tag: string) =>
    ['date,amount,currency,reference,payer_name,payer_account,bank_entry_id', ...Array.from({ length: n }, (_, i) => `2026-11-0${(i % 9) + 1},${i + 1}.00,USD,${tag} ${i},Payer ${tag} ${i},,${tag}-${i}`)].join(
      '\n',
    );

  /** Runs `work` with `table` refusing `UPDATE`s (a trigger of the test's own), removed after. */
  async function refusingUpdates<T>(table: string, work: () => Promise<T>): Promise<T> {
    await app.query(`CREATE FUNCTION test_refuse_update() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'test: % updated', TG_TABLE_NAME; END $$`);
    await app.query(`CREATE TRIGGER test_refuse_update BEFORE UPDATE ON ${table} FOR EACH ROW EXECUTE FUNCTION test_refuse_update()`);
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
});
