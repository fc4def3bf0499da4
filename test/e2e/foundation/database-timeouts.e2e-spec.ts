import { Client } from 'pg';
import { expectProblem, TestApp, TestTenant } from '../../support/test-app';

/**
 * Item 8 of issue 11: every pool's sessions carry statement, lock and idle-in-transaction
 * timeouts (DB_*_TIMEOUT_MS), and a statement that runs into one is answered with a 503
 * `database_timeout` problem with Retry-After instead of hanging or a 500 (docs/adr/0030).
 */
describe('database timeouts (issue 11 item 8)', () => {
  let app: TestApp;
  let tenant: TestTenant;
  beforeAll(async () => {
    app = await TestApp.start({ env: { DB_LOCK_TIMEOUT_MS: '300' } });
    tenant = await app.createTenant();
  });
  afterAll(() => app.close());

  it("sets the pool's session timeouts from the environment (defaults: statement 30 s, idle in transaction 60 s)", async () => {
    const [row] = await app.query(
      `SELECT current_setting('statement_timeout') AS statement, current_setting('lock_timeout') AS lock,
              current_setting('idle_in_transaction_session_timeout') AS idle`,
    );
    expect(row).toEqual({ statement: '30s', lock: '300ms', idle: '1min' });
  });

  it('answers a request that waits too long for a row lock with 503 database_timeout and Retry-After', async () => {
    const customer = await app.post('/api/v1/customers', { name: 'Locked Ltd', currency: 'EUR' }, tenant.token);
    expect(customer.status).toBe(201);
    // An operator's session holds the customer's row lock (as a long transaction would).
    const holder = new Client({ connectionString: app.databaseUrl });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM customers WHERE id = $1 FOR UPDATE', [customer.body.id]);
      const res = await app.patch(`/api/v1/customers/${customer.body.id}`, { name: 'Renamed' }, tenant.token);
      expectProblem(res, 503, 'database_timeout');
      expect(res.body.type).toBe('/problems/database_timeout');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(res.text).not.toMatch(/lock timeout|customers|FOR UPDATE/);
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await holder.end();
    }
    // Once the lock is gone the same request succeeds.
    const retried = await app.patch(`/api/v1/customers/${customer.body.id}`, { name: 'Renamed' }, tenant.token);
    expect(retried.status).toBe(200);
    expect(retried.body.name).toBe('Renamed');
  });
});
