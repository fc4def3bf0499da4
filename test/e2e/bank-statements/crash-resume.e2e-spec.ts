import { ChildProcess } from 'node:child_process';
import { Client } from 'pg';
import { TestApp, TestTenant } from '../../support/test-app';
import { killHard, spawnApp } from '../webhooks/support';
import { expectCountsAddUp, postFile } from './support';

/**
 * §14: "a crash mid-file loses nothing: the import resumes". The worker of one instance is killed
 * (SIGKILL) halfway through an import; another instance takes the import over when the lease
 * expires and finishes it: every credit exactly one payment, no entry twice.
 */
describe('bank import: crash mid-file', () => {
  let app: TestApp;
  let tenant: TestTenant;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    // This instance only takes the file (no worker); child processes do the work.
    app = await TestApp.start({ env: { WORKERS_ENABLED: 'false' } });
    tenant = await app.createTenant();
  });
  afterAll(async () => {
    for (const child of children) await killHard(child);
    await app.close();
  });

  // Two streams per window (ADR 0037): the takeover is tested with concurrent group transactions too.
  const workerEnv = { BANK_IMPORT_GROUP_SIZE: '3', BANK_IMPORT_LEASE_SECONDS: '1', BANK_IMPORT_POLL_MS: '50', BANK_IMPORT_STREAMS: '2' };
  const statement = async (id: string) => (await app.get(`/api/v1/bank-statements/${id}`, tenant.token)).body;

  async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it('resumes on another instance and creates every payment exactly once', async () => {
    const rows = Array.from({ length: 600 }, (_, i) => `2026-11-0${(i % 9) + 1},${i + 1}.00,USD,crash test ${i},Payer ${i},,TX-${i}`);
    const posted = await postFile(app, tenant, 'csv', ['date,amount,currency,reference,payer_name,payer_account,bank_entry_id', ...rows].join('\n'));
    expect(posted.status).toBe(202);
    const id = posted.body.id;

    // The first worker is stopped midway by a row lock, not by luck: this connection holds the
    // 301st entry, so the worker's group that records it waits there (with the payments of that
    // group written, uncommitted) until it is killed. A busy machine cannot let it finish first.
    const holder = new Client({ connectionString: app.databaseUrl });
    await holder.connect();
    let midway: { entries_processed: number; status: string };
    try {
      await holder.query('BEGIN');
      const [{ pid }] = (await holder.query(`SELECT pg_backend_pid() AS pid`)).rows;
      // (The row by its key: FOR UPDATE with OFFSET would lock every row it skips too.)
      const held = await holder.query(
        `SELECT position FROM bank_statement_entries WHERE tenant_id = $1 AND statement_id = $2
            AND position = (SELECT position FROM bank_statement_entries WHERE tenant_id = $1 AND statement_id = $2 ORDER BY position OFFSET 300 LIMIT 1)
            FOR UPDATE`,
        [tenant.tenant_id, id],
      );
      expect(held.rowCount).toBe(1);

      const first = await spawnApp(app.databaseUrl, workerEnv, 120_000);
      children.push(first.child);
      await until('the first worker to wait on the held entry', async () => {
        const blocked = await app.query(`SELECT 1 FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))`, [pid]);
        return blocked.length > 0 ? true : undefined;
      });
      midway = await statement(id);
      await killHard(first.child);
    } finally {
      await holder.end(); // rolls back; the killed worker's transaction can only roll back too
    }
    const atKill = await statement(id);
    expect(atKill.status).toBe('processing');
    expect(atKill.entries_processed).toBeLessThan(600);
    expect(midway.entries_processed).toBeGreaterThanOrEqual(60);

    const second = await spawnApp(app.databaseUrl, workerEnv, 120_000);
    children.push(second.child);
    const done = await until('the import to complete on the second instance', async () => {
      const s = await statement(id);
      return s.status === 'completed' ? s : undefined;
    });
    expect(done).toMatchObject({ entries_total: 600, payments_created: 600, payments_existing: 0, errors: [] });
    expectCountsAddUp(done);
    const [{ payments, distinct }] = await app.query(
      `SELECT count(*)::int AS payments, count(DISTINCT bank_entry_id)::int AS distinct FROM payments WHERE tenant_id = $1 AND metadata->>'bank_statement_id' = $2`,
      [tenant.tenant_id, id],
    );
    expect({ payments, distinct }).toEqual({ payments: 600, distinct: 600 });

    // And posted again after all that: nothing twice.
    const again = await postFile(app, tenant, 'csv', ['date,amount,currency,reference,payer_name,payer_account,bank_entry_id', ...rows].join('\n'));
    const repeat = await until('the repeat to complete', async () => {
      const s = await statement(again.body.id);
      return s.status === 'completed' ? s : undefined;
    });
    expect(repeat).toMatchObject({ payments_created: 0, payments_existing: 600 });
  }, 480_000);
});
