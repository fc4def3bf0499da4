import { Client } from 'pg';
import { FixedClock } from '../../../src/shared/domain/clock';
import { TenantSettingsCache } from '../../../src/modules/settings/infrastructure/tenant-settings.cache';
import { UnitOfWork } from '../../../src/shared/infrastructure/database/unit-of-work';
import { TestApp, TestTenant } from '../../support/test-app';
import { Receivables } from './support';

/**
 * Database round trips of an auto-matched POST /payments. Its throughput is bounded by how long
 * its transaction holds a pooled connection (docs/benchmarks.md), so each statement counts: this
 * records every statement pg clients send while the request runs (background workers are off)
 * and pins the list, so that a round trip added back shows here.
 */
describe('POST /payments: database round trips', () => {
  let app: TestApp;
  let tenant: TestTenant;
  let r: Receivables;
  const clock = new FixedClock(new Date('2026-03-15T12:00:00Z'));
  const sent: string[] = [];
  const named: boolean[] = [];
  let spy: jest.SpyInstance;

  beforeAll(async () => {
    app = await TestApp.start({ clock, env: { WORKERS_ENABLED: 'false' } });
    tenant = await app.createTenant();
    r = new Receivables(app, tenant);
    const original = Client.prototype.query;
    spy = jest.spyOn(Client.prototype, 'query').mockImplementation(function (this: Client, ...args: any[]) {
      const q = args[0];
      sent.push(typeof q === 'string' ? q : q?.text);
      named.push(typeof q === 'object' && typeof q?.name === 'string');
      return (original as any).apply(this, args);
    });
  });
  afterAll(async () => {
    spy.mockRestore();
    await app.close();
  });

  /** A statement's first words, enough to tell what it does. */
  const kind = (sql: string) => {
    const s = sql.replace(/\s+/g, ' ').trim();
    const m = /^(WITH \w+ AS \( ?)?(\(?SELECT .*? FROM \w+|SELECT \w+|INSERT INTO \w+|UPDATE \w+|START TRANSACTION.*|COMMIT)/.exec(s);
    return (m ? `${m[1] ? 'WITH ' : ''}${m[2]}` : s.slice(0, 40)).replace(/^\(/, '');
  };

  /** The writes of a combined statement, in its order: each CTE's first words. */
  const writesOf = (sql: string) =>
    [...sql.replace(/\s+/g, ' ').matchAll(/\b\w+ AS \( ?(INSERT INTO \w+|UPDATE \w+)/g)].map((m) => m[1]);

  /**
   * The tenant-settings cache connects its LISTEN connection on first use and trusts nothing until
   * it is up (every request reads tenant_settings meanwhile); a busy machine can take longer to
   * connect than the requests before the measured one. Wait for it instead of hoping.
   */
  const settingsListening = () => {
    const cache = app.app.get(TenantSettingsCache) as unknown as { listener: { connected: boolean } | null };
    return cache.listener?.connected === true;
  };

  it('an exact-amount match: the statements of its transaction, and no read for its answer', async () => {
    const c = await r.customer();
    const inv = await r.invoice(c.id, 10_000);
    const deadline = Date.now() + 30_000;
    while (!settingsListening()) {
      if (Date.now() > deadline) throw new Error('the tenant-settings listener never connected');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await r.payment({ customer_id: c.id, amount: 1, auto_match: 'none' }); // warms the client, rate-limit and settings caches
    sent.length = 0;
    named.length = 0;
    const res = await r.payment({ customer_id: c.id, amount: 10_000 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'applied', applications: [{ invoice_id: inv.id, amount: 10_000 }] });

    expect(sent.map(kind)).toEqual([
      'START TRANSACTION ISOLATION LEVEL READ COMMITTED',
      // The customer's currency, read as its matching lock is taken (matching would take it next).
      'SELECT c.currency, pg_advisory_xact_lock(hashtextextended($3, 0)) AS locked FROM customers',
      // The payment's row waits for matching: written once, as it ends up, with its applications.
      'SELECT id, number, customer_id, currency, status, amount_due, to_char(due_date, \'YYYY-MM-DD\') AS due_on, dispute_status IS NOT DISTINCT FROM \'open\' AS disputed FROM invoices',
      expect.stringMatching(/^SELECT i\.tenant_id, .* FROM invoices$/),
      // The writes, held back until commit, go out with the outbox's rows: one statement.
      'WITH INSERT INTO outbox',
      'COMMIT', // the 201 is the payment as written: no read of it after commit
    ]);
    expect(writesOf(sent[sent.length - 2])).toEqual([
      'INSERT INTO outbox',
      'UPDATE invoices', // the customer's figures follow in its trigger, at the statement's end
      'INSERT INTO payments', // written once, as matching left it
      'INSERT INTO payment_applications',
      'INSERT INTO ledger_entries', // the customer's balance follows in its trigger
    ]);
    // Parsed and planned once per connection: every statement but the transaction's own is a named
    // prepared statement (the outbox insert too: one text whatever the number of events).
    const unnamed = sent.filter((_, i) => !named[i]).map(kind);
    expect(unnamed).toEqual(['START TRANSACTION ISOLATION LEVEL READ COMMITTED', 'COMMIT']);
  });

  it('with an Idempotency-Key: the key\'s lock rides on its lookup, its response on the outbox\'s statement', async () => {
    const c = await r.customer();
    const inv = await r.invoice(c.id, 8_000);
    await r.payment({ customer_id: c.id, amount: 1, auto_match: 'none' }, { 'idempotency-key': `warm-${c.id}` });
    sent.length = 0;
    named.length = 0;
    const res = await r.payment({ customer_id: c.id, amount: 8_000 }, { 'idempotency-key': `pay-${c.id}` });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'applied', applications: [{ invoice_id: inv.id, amount: 8_000 }] });
    expect(sent.map(kind)).toEqual([
      'START TRANSACTION ISOLATION LEVEL READ COMMITTED',
      'SELECT l', // the key's lock and its stored response, in one statement
      'SELECT c.currency, pg_advisory_xact_lock(hashtextextended($3, 0)) AS locked FROM customers',
      'SELECT id, number, customer_id, currency, status, amount_due, to_char(due_date, \'YYYY-MM-DD\') AS due_on, dispute_status IS NOT DISTINCT FROM \'open\' AS disputed FROM invoices',
      expect.stringMatching(/^SELECT i\.tenant_id, .* FROM invoices$/),
      'WITH INSERT INTO outbox', // the writes, and the response stored under the key
      'COMMIT',
    ]);
    expect(writesOf(sent[sent.length - 2])).toEqual([
      'INSERT INTO outbox',
      'UPDATE invoices',
      'INSERT INTO payments',
      'INSERT INTO payment_applications',
      'INSERT INTO ledger_entries',
      'INSERT INTO idempotency_keys',
    ]);

    sent.length = 0;
    const replay = await r.payment({ customer_id: c.id, amount: 8_000 }, { 'idempotency-key': `pay-${c.id}` });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(res.body);
    expect(sent.map(kind)).toEqual(['START TRANSACTION ISOLATION LEVEL READ COMMITTED', 'SELECT l', 'COMMIT']);
  });

  it('the events of that transaction reach the outbox in the order they happened', async () => {
    const c = await r.customer();
    const inv = await r.invoice(c.id, 7_000);
    const res = await r.payment({ customer_id: c.id, amount: 7_000 });
    expect(res.body.status).toBe('applied');
    const rows = await app.query(
      `SELECT type, aggregate_id FROM outbox WHERE tenant_id = $1 AND aggregate_id = ANY($2::text[]) AND seq >= (
         SELECT seq FROM outbox WHERE tenant_id = $1 AND aggregate_id = $3 AND type = 'payment.created') ORDER BY seq`,
      [tenant.tenant_id, [inv.id, res.body.id], res.body.id],
    );
    expect(rows.map((row: any) => `${row.type} ${row.aggregate_id === inv.id ? 'invoice' : 'payment'}`)).toEqual([
      'payment.created payment',
      'invoice.updated invoice',
      'invoice.paid invoice',
      'payment.matched payment',
    ]);
  });

  it('transactions run at READ COMMITTED', async () => {
    const uow = app.app.get(UnitOfWork);
    const [row] = await uow.run(() => uow.query(`SELECT current_setting('transaction_isolation') AS level`));
    expect(row.level).toBe('read committed');
  });
});
