import { WebhookRelay } from '../../../src/modules/webhooks/infrastructure/webhook-relay';
import { TestApp, TestTenant } from '../../support/test-app';
import { WebhookReceiver } from '../../support/webhook-receiver';
import { emitEvent, expectSigned, subscribe, waitUntil } from './support';

process.env.WEBHOOK_RELAY_POLL_MS = '300';
process.env.WEBHOOK_RELAY_ENDPOINT_CONCURRENCY = '8';
process.env.WEBHOOK_RELAY_CONCURRENCY = '16';

describe('two service instances on one database', () => {
  let one: TestApp;
  let two: TestApp;
  let receiver: WebhookReceiver;
  let tenant: TestTenant;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    const env = { WEBHOOK_RETRY_SCHEDULE: '0,0,1', WEBHOOK_TIMEOUT_MS: '3000' };
    one = await TestApp.start({ env });
    two = await TestApp.start({ env, databaseUrl: one.databaseUrl });
    tenant = await one.createTenant();
  });
  afterAll(async () => {
    await two.close();
    await one.close();
    await receiver.close();
  });

  it('deliver every event to every endpoint, never sending one attempt twice', async () => {
    // Each endpoint fails the first attempt of every event, so retries are shared out too.
    const seen = new Set<string>();
    const paths = ['/m1', '/m2', '/m3', '/m4'];
    for (const path of paths) {
      receiver.on(path, (r) => {
        const key = `${path} ${r.event.id}`;
        const first = !seen.has(key);
        seen.add(key);
        return { status: first ? 500 : 200, delayMs: 5 + Math.floor(Math.random() * 20) };
      });
    }
    const endpoints = await Promise.all(paths.map((p) => subscribe(one, tenant, receiver.url(p), ['*'])));
    const before = [one, two].map((a) => a.app.get(WebhookRelay).stats.attempts);

    // Events written through both instances.
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) ids.push(await emitEvent(i % 2 ? one : two, tenant.tenant_id, 'payment.created'));
    const expected = ids.length * paths.length * 2;
    await receiver.waitFor((r) => r.length >= expected, 20_000, `${expected} requests`);
    await waitUntil(
      async () => (await one.query(`SELECT 1 FROM webhook_deliveries WHERE tenant_id = $1 AND status = 'succeeded'`, [tenant.tenant_id])).length === ids.length * paths.length,
      20_000,
    );
    await new Promise((r) => setTimeout(r, 300));

    // Exactly two requests (a failed attempt and its retry) per endpoint and event: nothing sent twice.
    expect(receiver.received).toHaveLength(expected);
    for (const path of paths) {
      const counts = new Map<string, number>();
      for (const r of receiver.at(path)) counts.set(r.event.id, (counts.get(r.event.id) ?? 0) + 1);
      expect([...counts.keys()].sort()).toEqual([...ids].sort());
      expect([...counts.values()].every((n) => n === 2)).toBe(true);
      expectSigned(receiver.at(path), endpoints[paths.indexOf(path)].secret);
    }
    const rows = await one.query(`SELECT attempts, count(*)::int AS n FROM webhook_deliveries WHERE tenant_id = $1 GROUP BY attempts`, [tenant.tenant_id]);
    expect(rows).toEqual([{ attempts: 2, n: ids.length * paths.length }]);

    // Both instances took part.
    const sent = [one, two].map((a, i) => a.app.get(WebhookRelay).stats.attempts - before[i]);
    expect(sent[0] + sent[1]).toBe(expected);
    expect(Math.min(...sent)).toBeGreaterThan(0);
  });
});
