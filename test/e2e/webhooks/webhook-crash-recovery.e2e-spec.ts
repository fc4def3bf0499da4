import { ChildProcess } from 'node:child_process';
import { TestApp, TestTenant } from '../../support/test-app';
import { WebhookReceiver } from '../../support/webhook-receiver';
import { deliveries, emitEvent, killHard, spawnApp, subscribe, waitUntil } from './support';

const RELAY_ENV = {
  WEBHOOK_RELAY_POLL_MS: '300',
  WEBHOOK_TIMEOUT_MS: '3000',
  // the shortest lease the relay allows for this timeout: the crashed instance's attempts come back after ~4 s
  WEBHOOK_RELAY_LEASE_MS: '4000',
  WEBHOOK_RELAY_ENDPOINT_CONCURRENCY: '3',
  WEBHOOK_RETRY_SCHEDULE: '0,0,1',
};
// The relay reads its tuning from the environment (TestApp passes `env` to the config only).
Object.assign(process.env, RELAY_ENV);

describe('webhook delivery across a crash (SIGKILL) and restart', () => {
  let api: TestApp;
  let restarted: TestApp | undefined;
  let receiver: WebhookReceiver;
  let child: ChildProcess | undefined;
  let tenant: TestTenant;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    // This instance only serves the API: its relay is off, so the child is the only sender.
    api = await TestApp.start({ env: { ...RELAY_ENV, WORKERS_ENABLED: 'false' } });
    tenant = await api.createTenant();
  });
  afterAll(async () => {
    if (child) await killHard(child);
    await restarted?.close();
    await api.close();
    await receiver.close();
  });

  it('delivers everything pending after the instance is killed mid-flight and another one starts', async () => {
    let up = false;
    receiver.on('/crash', () => (up ? { status: 200 } : { hang: true }));
    const ep = await subscribe(api, tenant, receiver.url('/crash'), ['*']);

    ({ child } = await spawnApp(api.databaseUrl, RELAY_ENV));
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push(await emitEvent(api, tenant.tenant_id, 'invoice.created'));

    // The child has fanned out all 8 and is in the middle of sending 3 (the endpoint's cap).
    await receiver.waitForCount('/crash', 3);
    await waitUntil(async () => (await api.query(`SELECT 1 FROM webhook_deliveries WHERE tenant_id = $1`, [tenant.tenant_id])).length === 8);
    await killHard(child);
    const inFlight = receiver.at('/crash').map((r) => r.event.id);
    expect(inFlight).toHaveLength(3);

    const rows = await api.query(`SELECT event_id, attempts, locked_until IS NOT NULL AS leased FROM webhook_deliveries WHERE tenant_id = $1`, [tenant.tenant_id]);
    expect(rows).toHaveLength(8);
    expect(rows.filter((r) => r.leased).map((r) => r.event_id).sort()).toEqual([...inFlight].sort());
    expect(rows.filter((r) => !r.leased).every((r) => r.attempts === 0)).toBe(true);

    up = true;
    const killedAt = Date.now();
    restarted = await TestApp.start({ databaseUrl: api.databaseUrl, env: { ...RELAY_ENV } });

    // The 5 never-sent deliveries go out at once; the 3 the dead instance held, once its lease expires.
    await waitUntil(async () => (await deliveries(api, tenant, ep.id)).every((d) => d.status === 'succeeded'), 12_000, 'all deliveries to succeed');
    const after = receiver.at('/crash').slice(3);
    expect(after.map((r) => r.event.id).sort()).toEqual([...ids].sort());
    const resent = after.filter((r) => inFlight.includes(r.event.id));
    expect(Math.min(...resent.map((r) => r.at)) - killedAt).toBeGreaterThan(1_000);

    const final = await deliveries(api, tenant, ep.id);
    expect(final).toHaveLength(8);
    for (const d of final) {
      // an attempt lost with the crash counts; the retry is a new attempt with the same webhook-id
      expect(d).toMatchObject({ status: 'succeeded', attempts: inFlight.includes(d.event_id) ? 2 : 1, last_response_code: 200 });
    }
    for (const id of inFlight) expect(receiver.at('/crash').filter((r) => r.event.id === id).map((r) => r.headers['webhook-id'])).toEqual([id, id]);
  });
});
