import { Client } from 'pg';
import { QueryRunner } from 'typeorm';
import { newId } from '../../../src/shared/domain/ids';
import { RelayDatabase } from '../../../src/modules/webhooks/infrastructure/relay-database';
import { TestApp, TestTenant } from '../../support/test-app';
import { WebhookReceiver } from '../../support/webhook-receiver';
import { emitEvent, subscribe, waitUntil } from './support';

// Issue #11 item 2. The timeout is long on purpose: a dead instance's lease (timeout + 30 s) and
// its reclaim time (timeout + 1 s) are both far beyond every deadline below, so only the new
// rules (a dead owner's leases do not count; an attempt that can no longer be running is taken
// back) can make these tests pass. The poll is the default 10 s for the same reason.
const RELAY_ENV = {
  WEBHOOK_TIMEOUT_MS: '20000',
  WEBHOOK_RELAY_POLL_MS: '10000',
  WEBHOOK_RELAY_ENDPOINT_CONCURRENCY: '3',
  WEBHOOK_RELAY_CONCURRENCY: '64',
  WEBHOOK_RELAY_LEASE_MS: '50000',
  WEBHOOK_RELAY_POOL_SIZE: '3',
  WEBHOOK_RETRY_SCHEDULE: '0,0,1',
};
// The relay reads its tuning from the environment (TestApp passes `env` to the config only).
Object.assign(process.env, RELAY_ENV);
const DEADLINE = 8_000;
const DEAD = 'crashed-host:4242:deadbeef';

describe('webhook relay: own pool, dead instances’ leases', () => {
  let app: TestApp;
  let receiver: WebhookReceiver;
  let tenant: TestTenant;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    app = await TestApp.start({
      env: { ...RELAY_ENV, DB_POOL_SIZE: '2', DB_STATEMENT_TIMEOUT_MS: '45000', DB_LOCK_TIMEOUT_MS: '7000', DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: '50000' },
    });
    tenant = await app.createTenant();
  });
  afterAll(async () => {
    await app.close();
    await receiver.close();
  });

  /**
   * Events already fanned out (of a type the endpoint does not subscribe to, so the fan-out
   * made no delivery), then given to `endpointId` as deliveries leased by a dead instance.
   */
  async function deadLeases(endpointId: string, n: number, lease: { untilSec: number; claimedSecAgo: number }): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push(await emitEvent(app, tenant.tenant_id, 'customer.created'));
    await waitUntil(async () => (await app.query(`SELECT 1 FROM outbox WHERE id = ANY($1) AND published_at IS NULL`, [ids])).length === 0, DEADLINE, 'fan-out');
    for (const id of ids) {
      await app.query(
        `INSERT INTO webhook_deliveries (tenant_id, id, endpoint_id, event_id, event_type, status, attempts, next_attempt_at,
                                         locked_by, locked_until, last_attempt_at, created_at, updated_at)
         VALUES ($1, $2, $3, $4, 'customer.created', 'pending', 1, now() - interval '1 minute',
                 $5, now() + make_interval(secs => $6), now() - make_interval(secs => $7), now(), now())`,
        [tenant.tenant_id, newId('whd'), endpointId, id, DEAD, lease.untilSec, lease.claimedSecAgo],
      );
    }
    // The rows appeared behind the relay's back: wake it as a fan-out would (it then plans its sleep with them).
    await app.query(`SELECT pg_notify('outbox', 'deliveries')`);
    return ids;
  }

  it('delivers a new event at once while a dead instance still holds unexpired leases filling the endpoint’s cap', async () => {
    const ep = await subscribe(app, tenant, receiver.url('/capped'), ['invoice.created']);
    // 3 leases (the cap) taken just now by an instance with no heartbeat: 50 s until they expire.
    const held = await deadLeases(ep.id, 3, { untilSec: 50, claimedSecAgo: 0 });
    const fresh = await emitEvent(app, tenant.tenant_id, 'invoice.created');
    await receiver.waitFor(() => receiver.at('/capped').some((r) => r.event.id === fresh), DEADLINE, 'the new event');
    // The dead instance's attempts are not sent again while they could still be running (20 s timeout).
    expect(receiver.at('/capped').map((r) => r.event.id)).toEqual([fresh]);
    const [row] = await app.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE event_id = ANY($1) AND locked_by = $2`, [held, DEAD]);
    expect(row.n).toBe(3);
  });

  it('sends a dead instance’s deliveries again once their attempt can no longer be running, before the lease ends', async () => {
    const ep = await subscribe(app, tenant, receiver.url('/reclaimed'), ['invoice.created']);
    // Claimed 25 s ago (> 20 s timeout + 1 s), lease still 25 s to go.
    const held = await deadLeases(ep.id, 2, { untilSec: 25, claimedSecAgo: 25 });
    await receiver.waitFor(() => held.every((id) => receiver.at('/reclaimed').some((r) => r.event.id === id)), DEADLINE, 'the reclaimed deliveries');
    await waitUntil(
      async () => (await app.query(`SELECT 1 FROM webhook_deliveries WHERE event_id = ANY($1) AND status = 'succeeded' AND attempts = 2`, [held])).length === 2,
      DEADLINE,
      'both recorded as second attempts',
    );
  });

  it('delivers a new event at once when a dead instance holds an expired lease on the same endpoint', async () => {
    const ep = await subscribe(app, tenant, receiver.url('/expired'), ['invoice.created']);
    const held = await deadLeases(ep.id, 3, { untilSec: -1, claimedSecAgo: 51 });
    const fresh = await emitEvent(app, tenant.tenant_id, 'invoice.created');
    await receiver.waitFor(() => [fresh, ...held].every((id) => receiver.at('/expired').some((r) => r.event.id === id)), DEADLINE, 'all four');
  });

  it('looks again as soon as a live instance’s lease that holds back due work expires, not at the next 10 s poll', async () => {
    const ep = await subscribe(app, tenant, receiver.url('/stalled'), ['invoice.created']);
    // An instance that is alive (fresh heartbeat) but stalled: its 3 leases (the cap) run out in 2 s.
    const stalled = 'stalled-host:1:cafe';
    await app.query(`INSERT INTO webhook_relay_instances (owner, heartbeat_at) VALUES ($1, now())`, [stalled]);
    const held = await deadLeases(ep.id, 3, { untilSec: 2, claimedSecAgo: 0 });
    await app.query(`UPDATE webhook_deliveries SET locked_by = $1 WHERE event_id = ANY($2)`, [stalled, held]);
    const fresh = await emitEvent(app, tenant.tenant_id, 'invoice.created');
    await receiver.waitFor(() => [fresh, ...held].every((id) => receiver.at('/stalled').some((r) => r.event.id === id)), DEADLINE, 'all four');
  });

  it('keeps delivering while every connection of the API pool is taken', async () => {
    const ep = await subscribe(app, tenant, receiver.url('/starved'), ['invoice.created']);
    // Take both connections of the API's pool (DB_POOL_SIZE=2) and hold them.
    const held: QueryRunner[] = [];
    for (let i = 0; i < 2; i++) {
      const runner = app.dataSource.createQueryRunner();
      await runner.connect();
      await runner.query('SELECT 1');
      held.push(runner);
    }
    const outsider = new Client({ connectionString: app.databaseUrl });
    await outsider.connect();
    try {
      // The event is committed by another connection, as another instance's request would.
      const id = newId('evt');
      await outsider.query(
        `WITH x AS (INSERT INTO outbox (tenant_id, id, type, aggregate_type, aggregate_id, data, created_at)
                    VALUES ($1, $2, 'invoice.created', 'invoice', 'inv_starved', '{"object":{"id":"inv_starved"}}', now()))
         SELECT pg_notify('outbox', '')`,
        [tenant.tenant_id, id],
      );
      await receiver.waitFor(() => receiver.at('/starved').some((r) => r.event.id === id), DEADLINE, 'delivery with the API pool exhausted');
      await waitUntil(
        async () => (await outsider.query(`SELECT 1 FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'succeeded'`, [ep.id])).rowCount === 1,
        DEADLINE,
        'the result recorded',
      );
      const pool = app.app.get(RelayDatabase).stats;
      expect(pool.max).toBe(3);
      expect(pool.total).toBeLessThanOrEqual(3);
    } finally {
      await outsider.end();
      for (const runner of held) await runner.release();
    }
  });

  it("the relay's connections take the DB_*_TIMEOUT_MS settings, its statements cut at 30 s at most", async () => {
    const relay = app.app.get(RelayDatabase);
    const [row] = await relay.query<{ statement: string; lock: string; idle: string }>(
      `SELECT current_setting('statement_timeout') AS statement, current_setting('lock_timeout') AS lock,
              current_setting('idle_in_transaction_session_timeout') AS idle`,
    );
    expect(row).toEqual({ statement: '30s', lock: '7s', idle: '50s' });
  });
});
