import { loadConfig } from '../../../src/config/config';
import { databaseFailure } from '../../../src/shared/infrastructure/database/database-errors';
import { RelayDatabase } from '../../../src/modules/webhooks/infrastructure/relay-database';
import { relaySettings } from '../../../src/modules/webhooks/infrastructure/relay-settings';
import { createTestDatabase } from '../../support/database';
import { PgFaultProxy } from '../../support/pg-fault-proxy';

/**
 * The relay's pool (docs/adr/0055): a pooled query whose connection PostgreSQL terminates right as
 * the query is done releases that client inside the read that carries the termination, and
 * pg-pool hands it at once to a transaction() waiting for a connection — which only gets it a
 * promise turn later. The 'error' event is emitted in between: without a listener of the client's
 * own it was uncaught (the process ended). Now the waiting transaction fails as unavailable (a
 * retry later), and the pool serves the next one.
 */
describe("the relay's pool: a query's connection terminated as it goes to a waiting transaction", () => {
  let db: { url: string; drop(): Promise<void> };
  let proxy: PgFaultProxy;
  let relay: RelayDatabase;

  beforeAll(async () => {
    db = await createTestDatabase();
    proxy = await PgFaultProxy.start(db.url);
    const config = loadConfig({ ...process.env, DATABASE_URL: proxy.url });
    relay = new RelayDatabase(proxy.url, { ...relaySettings(config, {}), poolSize: 1 }, config);
  });

  afterAll(async () => {
    await relay?.close();
    await proxy?.close();
    await db?.drop();
  });

  it('fails the waiting transaction as unavailable and serves the next one', async () => {
    await relay.query('SELECT 1'); // the pool's one connection, open
    const fault = proxy.fault('receivables-api:webhook-relay', 'idle', /relay connection loss marker/);
    const query = relay.query(`SELECT 'relay connection loss marker' AS marker`);
    // Queued behind the query (both wait for the pool's one connection, in this order).
    const transaction = relay.transaction(async (q) => q('SELECT 1 AS one'));
    expect(relay.stats).toMatchObject({ total: 1, waiting: 2 });
    expect((await query)[0].marker).toBe('relay connection loss marker');
    await fault;
    const failure = await transaction.then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(databaseFailure(failure)).toBe('unavailable');
    expect(await relay.transaction(async (q) => q<{ one: number }>('SELECT 1 AS one'))).toEqual([{ one: 1 }]);
  });
});
