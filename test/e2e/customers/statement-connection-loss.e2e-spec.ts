import { ChildProcess } from 'node:child_process';
import { get, IncomingMessage } from 'node:http';
import { Client } from 'pg';
import { createTestDatabase } from '../../support/database';
import { TestApp } from '../../support/test-app';
import { killHard, spawnApp, waitUntil } from '../webhooks/support';

// About 12 MB of CSV: far more than the socket buffers between the two processes hold (the
// receiver's window does not grow while it reads nothing; the sender's buffer stops at 4 MB), so
// the stream is still waiting on its cursor when the receiver stops reading.
const LINES = 200_000;

/**
 * A long statement streams its lines from a cursor on a connection held between reads. When
 * PostgreSQL ends that connection meanwhile (a receiver that stops reading until the 60 s
 * idle-in-transaction timeout, pg_terminate_backend, a restart), the driver reports an 'error'
 * event; without a listener it ended the whole process, and every tenant's requests with it.
 * The application runs in a child process so that an exit is observable.
 */
describe('statement stream whose database connection is lost', () => {
  let child: ChildProcess | undefined;
  afterEach(async () => {
    if (child) await killHard(child);
    child = undefined;
  });

  it('cuts that one response and keeps serving', async () => {
    const db = await createTestDatabase();
    const sql = new Client({ connectionString: db.url });
    await sql.connect();
    try {
      const setup = await TestApp.start({ databaseUrl: db.url });
      const tenant = await setup.createTenant('Stalled reader');
      const customerId = (await setup.post('/api/v1/customers', { name: 'Long history', currency: 'usd' }, tenant.token)).body.id;
      await setup.app.close();
      // 200,000 ledger lines (the seed sets the balance once, triggers off, as statement-size does).
      await sql.query('BEGIN');
      await sql.query('SET LOCAL session_replication_role = replica');
      await sql.query(
        `WITH entries AS (
           INSERT INTO ledger_entries (tenant_id, id, customer_id, entry_date, type, source_type, source_id, reference, description, debit, credit, created_at)
           SELECT $1, 'led_loss_' || g, $2, DATE '2026-01-01' + (g / 200)::int, 'invoice', 'invoice', 'inv_loss_' || g, 'L-' || g, 'Line ' || g, 100, 0, now()
             FROM generate_series(0, $3 - 1) g
           RETURNING debit - credit AS delta)
         UPDATE customers SET balance = balance + (SELECT SUM(delta) FROM entries) WHERE tenant_id = $1 AND id = $2`,
        [tenant.tenant_id, customerId, LINES],
      );
      await sql.query('COMMIT');

      const app = await spawnApp(db.url, {});
      child = app.child;
      const base = `http://127.0.0.1:${app.port}`;
      const token = await fetch(`${base}/api/v1/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ grant_type: 'client_credentials', client_id: tenant.client_id, client_secret: tenant.client_secret }),
      }).then(async (r) => ((await r.json()) as { access_token: string }).access_token);

      // A receiver that reads the headers and then stops reading: the stream waits on its cursor.
      const response = await new Promise<IncomingMessage>((resolve, reject) => {
        get(`${base}/api/v1/customers/${customerId}/statement?from=2026-01-01&to=2026-12-31`, { headers: { authorization: `Bearer ${token}`, accept: 'text/csv' } }, resolve).on('error', reject);
      });
      expect(response.statusCode).toBe(200);
      response.pause();
      let body = '';
      const ended = new Promise<void>((resolve) => {
        response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        response.on('end', resolve);
        response.on('close', resolve);
        response.on('error', () => resolve());
      });
      // The statement's connection, its cursor suspended (the portal waits for the next fetch).
      const held = `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event = 'ClientRead'
                      AND state IN ('active', 'idle in transaction') AND application_name LIKE 'receivables%' AND query LIKE '%FROM ledger_entries%'`;
      let pid: number | undefined;
      await waitUntil(async () => (pid = (await sql.query(held)).rows[0]?.pid) !== undefined, 60_000, 'the statement cursor held between reads');
      await sql.query('SELECT pg_terminate_backend($1)', [pid]);
      await waitUntil(async () => (await sql.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rowCount === 0, 60_000, 'the backend gone');

      response.resume(); // the rest of the body: cut where the cursor failed
      await ended;
      expect(body.length).toBeGreaterThan(0);
      expect(body).not.toContain(`L-${LINES - 1}`); // cut where the cursor failed, not finished
      // Still serving (a process ended by the 'error' event refuses the connection).
      const after = await fetch(`${base}/api/v1/customers/${customerId}`, { headers: { authorization: `Bearer ${token}` } });
      expect(after.status).toBe(200);
      expect(child.exitCode).toBeNull();
      const csv = await fetch(`${base}/api/v1/customers/${customerId}/statement?from=2026-01-01&to=2026-01-05`, { headers: { authorization: `Bearer ${token}`, accept: 'text/csv' } });
      expect(csv.status).toBe(200);
      expect((await csv.text()).trim().split('\r\n').length).toBeGreaterThan(1_000);
    } finally {
      if (child) await killHard(child);
      child = undefined;
      await sql.end();
      await db.drop();
    }
  }, 300_000);
});
