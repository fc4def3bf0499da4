import { Client } from 'pg';
import { OUTBOX_INSERT_SQL, outboxInsertParams } from '../../../src/shared/infrastructure/outbox/outbox.sql';
import { TestApp } from '../../support/test-app';
import { WebhookReceiver } from '../../support/webhook-receiver';
import { emitEvent, subscribe } from './support';

// Events of a tenant without an enabled endpoint are written published (ADR 0057): the relay had
// nothing to do with them but mark them, a non-HOT update of every outbox row.
describe('outbox rows written published when no endpoint is enabled', () => {
  let app: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    // No relay: whatever is published was published by the insert.
    app = await TestApp.start({ env: { WORKERS_ENABLED: 'false' } });
  });
  afterAll(async () => {
    await app.close();
    await receiver.close();
  });

  const publishedAt = async (id: string): Promise<Date | null> => (await app.query(`SELECT published_at FROM outbox WHERE id = $1`, [id]))[0].published_at;
  const event = (tenantId: string) => ({ type: 'invoice.created', aggregateType: 'invoice', aggregateId: 'inv_1', tenantId, occurredAt: new Date(), data: { object: { id: 'inv_1' } } });
  const connect = async () => {
    const client = new Client({ connectionString: app.databaseUrl });
    await client.connect();
    return client;
  };

  /** Until the backend `pid` waits for an advisory lock (a state, not a delay); fails when it never does. */
  const waitingForAdvisoryLock = async (pid: number) => {
    for (let i = 0; i < 250; i++) {
      const [{ waiting }] = await app.query(`SELECT count(*)::int AS waiting FROM pg_locks WHERE pid = $1 AND locktype = 'advisory' AND NOT granted`, [pid]);
      if (waiting === 1) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`backend ${pid} never waited for the endpoints' advisory lock`);
  };

  it('writes the events of a tenant without an enabled endpoint published, and leaves the others to the relay', async () => {
    const alone = await app.createTenant('Alone');
    const subscribed = await app.createTenant('Subscribed');
    await subscribe(app, subscribed, receiver.url('/a'), ['*']);
    const disabled = await app.createTenant('Disabled');
    const endpoint = await subscribe(app, disabled, receiver.url('/b'), ['*']);
    expect((await app.patch(`/api/v1/webhooks/${endpoint.id}`, { status: 'disabled' }, disabled.token)).status).toBe(200);

    expect(await publishedAt(await emitEvent(app, alone.tenant_id, 'invoice.created'))).toBeInstanceOf(Date);
    expect(await publishedAt(await emitEvent(app, subscribed.tenant_id, 'invoice.created'))).toBeNull();
    expect(await publishedAt(await emitEvent(app, disabled.tenant_id, 'invoice.created'))).toBeInstanceOf(Date);
    // Not in the relay's index of unpublished rows.
    const [{ n }] = await app.query(`SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL AND tenant_id = $1`, [alone.tenant_id]);
    expect(n).toBe(0);
  });

  it('wakes the relay only for events left to it', async () => {
    const alone = await app.createTenant('Quiet');
    const subscribed = await app.createTenant('Loud');
    await subscribe(app, subscribed, receiver.url('/q'), ['*']);
    const listener = await connect();
    try {
      const notices: string[] = [];
      listener.on('notification', (n) => {
        if (n.channel === 'outbox' && n.payload === '') notices.push(n.channel);
      });
      await listener.query(`LISTEN outbox`);
      await emitEvent(app, alone.tenant_id, 'invoice.created');
      await emitEvent(app, subscribed.tenant_id, 'invoice.created');
      // Notifications arrive in commit order, each before the answer to a later query of the listener.
      for (let i = 0; i < 250 && notices.length === 0; i++) await listener.query(`SELECT pg_sleep(0.02)`);
      await listener.query(`SELECT 1`);
      expect(notices).toEqual(['outbox']);
    } finally {
      await listener.end();
    }
  });

  it('asks for each tenant of a statement', async () => {
    const alone = await app.createTenant('Alone 2');
    const subscribed = await app.createTenant('Subscribed 2');
    await subscribe(app, subscribed, receiver.url('/c'), ['*']);
    const client = await connect();
    try {
      const params = outboxInsertParams([event(alone.tenant_id), event(subscribed.tenant_id), event(alone.tenant_id)]);
      await client.query(OUTBOX_INSERT_SQL, params);
      const ids = params[1] as string[];
      expect(await Promise.all(ids.map(async (id) => (await publishedAt(id)) !== null))).toEqual([true, false, true]);
    } finally {
      await client.end();
    }
  });

  it('an event written while an endpoint is being enabled waits for it, then stays unpublished', async () => {
    const tenant = await app.createTenant('Racing');
    const endpoint = await subscribe(app, tenant, receiver.url('/d'), ['*']);
    expect((await app.patch(`/api/v1/webhooks/${endpoint.id}`, { status: 'disabled' }, tenant.token)).status).toBe(200);
    const enabling = await connect();
    const writing = await connect();
    try {
      await enabling.query(`BEGIN`);
      await enabling.query(`UPDATE webhook_endpoints SET status = 'enabled', disabled_reason = NULL WHERE tenant_id = $1 AND id = $2`, [tenant.tenant_id, endpoint.id]);
      const { rows: [{ pid }] } = await writing.query(`SELECT pg_backend_pid() AS pid`);
      const params = outboxInsertParams([event(tenant.tenant_id)]);
      const written = writing.query(OUTBOX_INSERT_SQL, params);
      // The writer waits for the enabling transaction's lock.
      await waitingForAdvisoryLock(pid);
      await enabling.query(`COMMIT`);
      await written;
      expect(await publishedAt((params[1] as string[])[0])).toBeNull();
    } finally {
      await enabling.end();
      await writing.end();
    }
  });

  it('an endpoint enabled while an event is being written waits for the event to commit', async () => {
    const tenant = await app.createTenant('Racing 2');
    const endpoint = await subscribe(app, tenant, receiver.url('/e'), ['*']);
    expect((await app.patch(`/api/v1/webhooks/${endpoint.id}`, { status: 'disabled' }, tenant.token)).status).toBe(200);
    const enabling = await connect();
    const writing = await connect();
    try {
      await writing.query(`BEGIN`);
      const params = outboxInsertParams([event(tenant.tenant_id)]);
      await writing.query(OUTBOX_INSERT_SQL, params);
      const { rows: [{ pid }] } = await enabling.query(`SELECT pg_backend_pid() AS pid`);
      const enabled = enabling.query(`UPDATE webhook_endpoints SET status = 'enabled', disabled_reason = NULL WHERE tenant_id = $1 AND id = $2`, [tenant.tenant_id, endpoint.id]);
      await waitingForAdvisoryLock(pid);
      await writing.query(`COMMIT`);
      await enabled;
      // Committed before the endpoint was enabled: published, as the relay would have marked it.
      expect(await publishedAt((params[1] as string[])[0])).toBeInstanceOf(Date);
    } finally {
      await enabling.end();
      await writing.end();
    }
  });
});
