import { TestApp, TestTenant } from '../../support/test-app';
import { WebhookReceiver } from '../../support/webhook-receiver';
import { deliveries, emitEvent, expectSigned, subscribe, waitUntil } from './support';

// Small relay settings so the retry paths run in about a second.
process.env.WEBHOOK_RELAY_POLL_MS = '300';
process.env.WEBHOOK_RELAY_ENDPOINT_CONCURRENCY = '4';
// Fewer slots than the slow endpoint's backlog, so only the per-endpoint cap keeps the fast one moving.
process.env.WEBHOOK_RELAY_CONCURRENCY = '8';

describe('webhook delivery', () => {
  let app: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    // No test here waits for a request timeout; a long one means a slow receiver is never cut off
    // (and retried) just because this machine is busy.
    app = await TestApp.start({ env: { WEBHOOK_RETRY_SCHEDULE: '0,0,1', WEBHOOK_TIMEOUT_MS: '60000' } });
  });
  afterAll(async () => {
    await app.close();
    await receiver.close();
  });

  let tenant: TestTenant;
  beforeEach(async () => {
    tenant = await app.createTenant();
  });

  it('sends only the subscribed types, to the subscribed tenant, each exactly once', async () => {
    const paid = await subscribe(app, tenant, receiver.url('/only-paid'), ['invoice.paid']);
    const payments = await subscribe(app, tenant, receiver.url('/payments'), ['payment.*']);
    const stranger = await app.createTenant('Stranger');
    await subscribe(app, stranger, receiver.url('/stranger'), ['*']);

    const ids = {
      created: await emitEvent(app, tenant.tenant_id, 'invoice.created'),
      paid: await emitEvent(app, tenant.tenant_id, 'invoice.paid'),
      payment: await emitEvent(app, tenant.tenant_id, 'payment.created'),
      matched: await emitEvent(app, tenant.tenant_id, 'payment.matched'),
      dispute: await emitEvent(app, tenant.tenant_id, 'dispute.opened'),
      internal: await emitEvent(app, tenant.tenant_id, 'customer.created'),
    };
    await receiver.waitForCount('/only-paid', 1);
    await receiver.waitForCount('/payments', 2);
    // Everything was fanned out (the outbox is drained) and every delivery is final.
    await waitUntil(async () => (await app.query(`SELECT 1 FROM outbox WHERE published_at IS NULL AND tenant_id = $1`, [tenant.tenant_id])).length === 0);
    await waitUntil(async () => (await deliveries(app, tenant, payments.id)).every((d) => d.status === 'succeeded'));

    expect(receiver.at('/only-paid').map((r) => r.event.id)).toEqual([ids.paid]);
    expect(receiver.at('/payments').map((r) => r.event.id).sort()).toEqual([ids.payment, ids.matched].sort());
    expect(receiver.at('/stranger')).toHaveLength(0);
    expectSigned(receiver.at('/only-paid'), paid.secret);
    expectSigned(receiver.at('/payments'), payments.secret);
    expect((await deliveries(app, tenant, paid.id)).map((d) => d.event_type)).toEqual(['invoice.paid']);
  });

  it('delivers the envelope: id, type, created_at and data from the outbox', async () => {
    const ep = await subscribe(app, tenant, receiver.url('/envelope'), ['invoice.updated']);
    const id = await emitEvent(app, tenant.tenant_id, 'invoice.updated', { id: 'inv_x', memo: 'new', amount_due: 12550 }, { memo: 'old' });
    const [request] = await receiver.waitForCount('/envelope', 1);
    expectSigned([request], ep.secret);
    const [row] = await app.query(`SELECT created_at FROM outbox WHERE tenant_id = $1 AND id = $2`, [tenant.tenant_id, id]);
    expect(request.event).toEqual({
      id,
      type: 'invoice.updated',
      created_at: row.created_at.toISOString(),
      data: { object: { id: 'inv_x', memo: 'new', amount_due: 12550 }, previous_attributes: { memo: 'old' } },
    });
    expect(request.headers['content-type']).toBe('application/json');
    expect(Math.abs(Number(request.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(5);
  });

  it('retries a receiver that fails its first attempts, with the same webhook-id, until it succeeds', async () => {
    receiver.on('/flaky', (r) => ({ status: r.n <= 2 ? 500 : 204 }));
    const ep = await subscribe(app, tenant, receiver.url('/flaky'), ['invoice.*']);
    const id = await emitEvent(app, tenant.tenant_id, 'invoice.finalized');
    const requests = await receiver.waitForCount('/flaky', 3);
    expect(requests.map((r) => r.headers['webhook-id'])).toEqual([id, id, id]);
    expectSigned(requests, ep.secret);
    await waitUntil(async () => (await deliveries(app, tenant, ep.id))[0]?.status === 'succeeded');
    expect(await deliveries(app, tenant, ep.id)).toEqual([
      expect.objectContaining({ event_id: id, status: 'succeeded', attempts: 3, last_response_code: 204, last_error: null, next_attempt_at: null }),
    ]);
    expect(receiver.at('/flaky')).toHaveLength(3);
  });

  it('marks the delivery failed once the schedule is exhausted; redirects are not followed', async () => {
    receiver.on('/moved', () => ({ status: 302, headers: { location: receiver.url('/target') } }));
    const ep = await subscribe(app, tenant, receiver.url('/moved'), ['*']);
    await emitEvent(app, tenant.tenant_id, 'invoice.voided');
    // 0, 0 and 1 s (+ up to 20 % jitter) between the 4 attempts
    await receiver.waitForCount('/moved', 4, 20_000);
    await waitUntil(async () => (await deliveries(app, tenant, ep.id))[0]?.status === 'failed');
    expect(await deliveries(app, tenant, ep.id)).toEqual([
      expect.objectContaining({ status: 'failed', attempts: 4, last_response_code: 302, last_error: 'HTTP 302', next_attempt_at: null }),
    ]);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.at('/moved')).toHaveLength(4);
    expect(receiver.at('/target')).toHaveLength(0);
    // The endpoint stays enabled: only a 410 disables it.
    expect((await app.get(`/api/v1/webhooks/${ep.id}`, tenant.token)).body.status).toBe('enabled');
  });

  it('waits at least Retry-After on a 503 before retrying', async () => {
    receiver.on('/busy', (r) => (r.n === 1 ? { status: 503, headers: { 'retry-after': '1' } } : { status: 200 }));
    const ep = await subscribe(app, tenant, receiver.url('/busy'), ['*']);
    await emitEvent(app, tenant.tenant_id, 'payment.created');
    const [first, second] = await receiver.waitForCount('/busy', 2, 20_000);
    // The schedule alone would retry at once (0 s); the receiver asked for 1 s.
    expect(second.at - first.at).toBeGreaterThanOrEqual(950);
    await waitUntil(async () => (await deliveries(app, tenant, ep.id))[0]?.status === 'succeeded');
  });

  it('disables the endpoint on 410 Gone and sends it nothing more', async () => {
    receiver.on('/gone', () => ({ status: 410 }));
    const ep = await subscribe(app, tenant, receiver.url('/gone'), ['*']);
    await emitEvent(app, tenant.tenant_id, 'invoice.created');
    await receiver.waitForCount('/gone', 1);
    await waitUntil(async () => (await app.get(`/api/v1/webhooks/${ep.id}`, tenant.token)).body.status === 'disabled');
    expect((await app.get(`/api/v1/webhooks/${ep.id}`, tenant.token)).body).toMatchObject({ status: 'disabled', disabled_reason: 'gone' });
    expect(await deliveries(app, tenant, ep.id)).toEqual([expect.objectContaining({ status: 'failed', attempts: 1, last_response_code: 410 })]);

    await emitEvent(app, tenant.tenant_id, 'invoice.created');
    await waitUntil(async () => (await app.query(`SELECT 1 FROM outbox WHERE published_at IS NULL AND tenant_id = $1`, [tenant.tenant_id])).length === 0);
    await new Promise((r) => setTimeout(r, 200));
    expect(receiver.at('/gone')).toHaveLength(1);
    expect(await deliveries(app, tenant, ep.id)).toHaveLength(1);
  });

  it('fails the pending deliveries of an endpoint a client disables, and does not resend them when it is enabled again', async () => {
    receiver.on('/later', () => ({ status: 503, headers: { 'retry-after': '30' } }));
    const ep = await subscribe(app, tenant, receiver.url('/later'), ['*']);
    await emitEvent(app, tenant.tenant_id, 'dispute.opened');
    const [attempt] = await receiver.waitForCount('/later', 1);
    await waitUntil(async () => (await deliveries(app, tenant, ep.id))[0]?.last_response_code === 503);
    const [waiting] = await deliveries(app, tenant, ep.id);
    expect(waiting).toMatchObject({ status: 'pending', attempts: 1, last_error: 'HTTP 503' });
    // 30 s after the answer (measured from the attempt itself, not from however late this line runs)
    expect(Date.parse(waiting.next_attempt_at) - attempt.at).toBeGreaterThanOrEqual(29_000);

    expect((await app.patch(`/api/v1/webhooks/${ep.id}`, { status: 'disabled' }, tenant.token)).status).toBe(200);
    expect(await deliveries(app, tenant, ep.id)).toEqual([expect.objectContaining({ status: 'failed', attempts: 1, last_error: 'endpoint disabled', next_attempt_at: null })]);
    expect((await app.patch(`/api/v1/webhooks/${ep.id}`, { status: 'enabled' }, tenant.token)).status).toBe(200);
    expect((await deliveries(app, tenant, ep.id))[0].status).toBe('failed');
  });

  it('does not let a slow endpoint delay deliveries to another', async () => {
    // The slow endpoint answers nothing until the test opens its gate (and the request timeout is a
    // minute): whatever the machine's speed, the fast deliveries can only arrive past it.
    let openGate!: () => void;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    let inFlight = 0;
    let maxInFlight = 0;
    receiver.on('/slow', async () => {
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      await gate;
      inFlight--;
      return { status: 200 };
    });
    const slow = await subscribe(app, tenant, receiver.url('/slow'), ['*']);
    const fast = await subscribe(app, tenant, receiver.url('/fast'), ['*']);
    for (let i = 0; i < 12; i++) await emitEvent(app, tenant.tenant_id, 'payment.created');
    // All 12 fast deliveries arrive while the slow endpoint has not answered even its first request,
    // and holds no more than its cap of the 8 slots.
    await receiver.waitForCount('/fast', 12, 30_000);
    expect(receiver.at('/slow').length).toBeLessThanOrEqual(4);
    expect(maxInFlight).toBeLessThanOrEqual(4);
    // ...and the slow endpoint still gets all of its events, 4 at a time.
    openGate();
    await receiver.waitForCount('/slow', 12, 30_000);
    await waitUntil(async () => (await deliveries(app, tenant, slow.id)).every((d) => d.status === 'succeeded'), 30_000);
    expect(maxInFlight).toBeLessThanOrEqual(4);
    expect(receiver.at('/slow')).toHaveLength(12);
    expect(await deliveries(app, tenant, fast.id)).toHaveLength(12);
  }, 120_000);
});
