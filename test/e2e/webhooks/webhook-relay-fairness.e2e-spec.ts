import { TestApp, TestTenant } from '../../support/test-app';
import { WebhookReceiver } from '../../support/webhook-receiver';
import { emitEvent, subscribe, waitUntil } from './support';

// Issue #12 finding 2. Tenant A's receivers accept every request and never answer, and A's
// attempts time out only after 120 s, far beyond this test's deadlines: nothing of A's finishes
// while the test runs, so tenant B's delivery can only arrive if the relay keeps a share for B.
const RELAY_ENV = {
  WEBHOOK_TIMEOUT_MS: '120000',
  WEBHOOK_RELAY_POLL_MS: '10000',
  WEBHOOK_RELAY_CONCURRENCY: '64',
  WEBHOOK_RELAY_ENDPOINT_CONCURRENCY: '8',
  WEBHOOK_RELAY_TENANT_CONCURRENCY: '16',
  WEBHOOK_RETRY_SCHEDULE: '0,0,1',
};
Object.assign(process.env, RELAY_ENV);
const HANGING = 16;

describe('webhook relay fairness: a tenant whose receivers never answer', () => {
  let app: TestApp;
  let receiver: WebhookReceiver;
  let a: TestTenant;
  let b: TestTenant;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    app = await TestApp.start({ env: RELAY_ENV });
    a = await app.createTenant('Attacker');
    b = await app.createTenant('Bystander');
  });
  afterAll(async () => {
    // Closing the receiver first ends A's hanging requests, so the relay stops at once.
    await receiver.close();
    await app.close();
  });

  it('delivers another tenant’s event while every one of its deliveries is still hanging', async () => {
    for (let i = 0; i < HANGING; i++) {
      receiver.on(`/a${i}`, () => ({ hang: true }));
      await subscribe(app, a, receiver.url(`/a${i}`), ['*']);
    }
    await subscribe(app, b, receiver.url('/b'), ['*']);
    // 8 events × 16 endpoints = 128 deliveries: twice the instance's 64 slots.
    for (let i = 0; i < 8; i++) await emitEvent(app, a.tenant_id, 'invoice.created');
    const hanging = () => receiver.received.filter((r) => r.path.startsWith('/a'));
    await waitUntil(() => hanging().length >= 16, 20_000, 'A’s receivers to hold requests');
    await waitUntil(async () => (await app.query(`SELECT 1 FROM outbox WHERE published_at IS NULL`)).length === 0, 20_000, 'A’s fan-out');

    const event = await emitEvent(app, b.tenant_id, 'invoice.created');
    await receiver.waitFor(() => receiver.at('/b').some((r) => r.event.id === event), 20_000, 'B’s delivery');

    // Every request A's receivers got is still unanswered, and A holds no more than its share.
    const [{ n }] = await app.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE tenant_id = $1 AND status <> 'pending'`, [a.tenant_id]);
    expect(n).toBe(0);
    expect(hanging().length).toBeLessThanOrEqual(16);
    const [{ leased }] = await app.query(`SELECT count(*)::int AS leased FROM webhook_deliveries WHERE tenant_id = $1 AND locked_until > now()`, [a.tenant_id]);
    expect(leased).toBeLessThanOrEqual(16);
  });
});
