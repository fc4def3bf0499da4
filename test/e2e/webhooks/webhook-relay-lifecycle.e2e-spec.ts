import { Client } from 'pg';
import { WebhookHttpClient } from '../../../src/modules/webhooks/infrastructure/webhook-http-client';
import { WebhookRelay } from '../../../src/modules/webhooks/infrastructure/webhook-relay';
import { WebhookUrlGuard } from '../../../src/modules/webhooks/infrastructure/webhook-url-guard';
import { OUTBOX_CHANNEL } from '../../../src/shared/infrastructure/outbox/outbox.writer';
import { LISTENER_APPLICATION_NAME } from '../../../src/shared/infrastructure/database/pg-listener';
import { ClientStatusCache } from '../../../src/modules/auth/infrastructure/client-status.cache';
import { TenantSettingsCache } from '../../../src/modules/settings/infrastructure/tenant-settings.cache';
import { TestApp, TestTenant } from '../../support/test-app';
import { WebhookReceiver } from '../../support/webhook-receiver';
import { deliveries, emitEvent, subscribe, waitUntil } from './support';

// A fallback poll far beyond the test timeouts: only LISTEN/NOTIFY can deliver anything here before
// it, so a delivery within PROMPT proves the wake-up without timing how fast a busy machine is.
const POLL_MS = 600_000;
const PROMPT = 20_000;
process.env.WEBHOOK_RELAY_POLL_MS = String(POLL_MS);
process.env.WEBHOOK_RELAY_SHUTDOWN_GRACE_MS = '300';
const COALESCE_MS = Number((process.env.WEBHOOK_RELAY_COALESCE_MS ??= '200'));

describe('webhook relay lifecycle', () => {
  let app: TestApp;
  let receiver: WebhookReceiver;
  let tenant: TestTenant;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    app = await TestApp.start({ env: { WEBHOOK_RETRY_SCHEDULE: '0,0,1', WEBHOOK_TIMEOUT_MS: '2000' } });
    tenant = await app.createTenant();
  });
  afterAll(async () => {
    await app.close();
    await receiver.close();
  });

  it('is woken by NOTIFY on commit, without waiting for the poll', async () => {
    await subscribe(app, tenant, receiver.url('/notify'), ['*']);
    await new Promise((r) => setTimeout(r, 200)); // let the relay go to sleep
    await emitEvent(app, tenant.tenant_id, 'invoice.created');
    await receiver.waitForCount('/notify', 1, PROMPT); // the poll would take POLL_MS
  });

  it('gathers the notifications of commits close together into one pass over the outbox', async () => {
    await subscribe(app, tenant, receiver.url('/burst'), ['dispute.opened']);
    await new Promise((r) => setTimeout(r, 200));
    const stats = app.app.get(WebhookRelay).stats;
    // When the relay's notifications arrive, seen from a second LISTEN connection in this process.
    const arrivals: number[] = [];
    const listener = new Client({ connectionString: app.databaseUrl });
    await listener.connect();
    listener.on('notification', (n) => n.payload === '' && arrivals.push(Date.now())); // commits' ('deliveries': the relay's own)
    await listener.query(`LISTEN ${OUTBOX_CHANNEL}`);
    // The relay is also woken for other reasons while commits arrive (a send finished, a retry due):
    // here every 5 ms. Those wakes must not fan out a window's commits early, one pass each.
    const relay = app.app.get(WebhookRelay);
    const waker = setInterval(() => relay.wake(), 5);
    try {
      const before = stats.fanOuts;
      for (let i = 0; i < 20; i++) await emitEvent(app, tenant.tenant_id, 'dispute.opened'); // one commit after another
      clearInterval(waker);
      await receiver.waitForCount('/burst', 20, PROMPT);
      await waitUntil(() => arrivals.length >= 20, PROMPT, 'the 20 notifications');
      // Each pass gathers every notification of one coalescing window, so the passes are bounded by
      // the windows the notifications spread over (+1 for one arriving just as a pass starts, +1 for
      // the two connections' delivery jitter). An idle machine spreads the 20 commits over a window or
      // two (a pass for most of them with WEBHOOK_RELAY_COALESCE_MS=0); a loaded one spreads them
      // wider, and the bound follows instead of failing on the machine's speed.
      const spread = arrivals[arrivals.length - 1] - arrivals[0];
      expect(stats.fanOuts - before).toBeLessThanOrEqual(Math.floor(spread / COALESCE_MS) + 3);
    } finally {
      clearInterval(waker);
      await listener.end();
    }
  });

  it('reconnects its LISTEN connection when the database drops it', async () => {
    await subscribe(app, tenant, receiver.url('/reconnect'), ['invoice.paid']);
    const [{ n }] = await app.query(
      `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
        WHERE application_name = '${LISTENER_APPLICATION_NAME}' AND datname = current_database()`,
    );
    expect(n).toBe(1);
    await waitUntil(
      async () =>
        (await app.query(`SELECT 1 FROM pg_stat_activity WHERE application_name = '${LISTENER_APPLICATION_NAME}' AND datname = current_database()`))
          .length === 1,
      PROMPT,
      'the listener to reconnect',
    );
    await new Promise((r) => setTimeout(r, 200));
    await emitEvent(app, tenant.tenant_id, 'invoice.paid');
    await receiver.waitForCount('/reconnect', 1, PROMPT); // the poll would take POLL_MS
  });

  it('listens on one connection for the relay and the caches: each commit wakes one backend of the instance, not three', async () => {
    // The clients cache listens from the first authenticated request, the settings cache from the first settings read.
    expect((await app.get('/api/v1/settings', tenant.token)).status).toBe(200);
    const clients = app.app.get(ClientStatusCache);
    const settings = app.app.get(TenantSettingsCache) as unknown as { listener: { connected: boolean } | null };
    await waitUntil(() => clients.listening && settings.listener?.connected === true, PROMPT, 'both caches listening');
    const rows = await app.query(
      `SELECT application_name AS name FROM pg_stat_activity WHERE application_name LIKE 'receivables-api:%listener' AND datname = current_database()`,
    );
    expect(rows).toEqual([{ name: LISTENER_APPLICATION_NAME }]);
    // And each still hears its own channel: a commit's outbox notice reaches the relay.
    await subscribe(app, tenant, receiver.url('/one-connection'), ['invoice.finalized']);
    await new Promise((r) => setTimeout(r, 200));
    await emitEvent(app, tenant.tenant_id, 'invoice.finalized');
    await receiver.waitForCount('/one-connection', 1, PROMPT); // the poll would take POLL_MS
  });

  it('on shutdown stops claiming, waits for in-flight attempts briefly, then hands them back', async () => {
    // A request timeout far beyond the grace: only the grace can end the hanging attempt promptly.
    const second = await TestApp.start({ databaseUrl: app.databaseUrl, env: { WEBHOOK_TIMEOUT_MS: '120000', WEBHOOK_RETRY_SCHEDULE: '0' } });
    await app.app.get(WebhookRelay).stop(); // only the second instance sends now
    try {
      receiver.on('/shutdown', () => ({ hang: true }));
      const ep = await subscribe(app, tenant, receiver.url('/shutdown'), ['*']);
      await emitEvent(app, tenant.tenant_id, 'invoice.voided');
      await receiver.waitForCount('/shutdown', 1, PROMPT);
      const closing = Date.now();
      await second.close();
      // grace of 300 ms, long before the 120 s request timeout (and the test's own timeout)
      expect(Date.now() - closing).toBeLessThan(PROMPT);
      const [d] = await deliveries(app, tenant, ep.id);
      expect(d).toMatchObject({ status: 'pending', attempts: 1, last_error: 'interrupted: the sending instance shut down during the attempt' });
      expect(Date.parse(d.next_attempt_at)).toBeLessThanOrEqual(Date.now());
      const [{ leased }] = await app.query(`SELECT locked_until IS NOT NULL AS leased FROM webhook_deliveries WHERE tenant_id = $1 AND id = $2`, [tenant.tenant_id, d.id]);
      expect(leased).toBe(false);

      // The remaining instance picks it up at once.
      receiver.on('/shutdown', () => ({ status: 200 }));
      app.app.get(WebhookRelay).start();
      await waitUntil(async () => (await deliveries(app, tenant, ep.id))[0].status === 'succeeded', PROMPT);
      expect((await deliveries(app, tenant, ep.id))[0]).toMatchObject({ attempts: 2, last_response_code: 200 });
    } finally {
      app.app.get(WebhookRelay).start();
    }
  });

  it('starts at most one pass over the outbox per WEBHOOK_RELAY_PASS_INTERVAL_MS however its commits spread', async () => {
    // A short window and commits farther apart than it: without the interval, a pass for almost every commit.
    const saved = { coalesce: process.env.WEBHOOK_RELAY_COALESCE_MS, interval: process.env.WEBHOOK_RELAY_PASS_INTERVAL_MS };
    process.env.WEBHOOK_RELAY_COALESCE_MS = '10';
    process.env.WEBHOOK_RELAY_PASS_INTERVAL_MS = '300';
    const second = await TestApp.start({ databaseUrl: app.databaseUrl });
    process.env.WEBHOOK_RELAY_COALESCE_MS = saved.coalesce;
    if (saved.interval === undefined) delete process.env.WEBHOOK_RELAY_PASS_INTERVAL_MS;
    else process.env.WEBHOOK_RELAY_PASS_INTERVAL_MS = saved.interval;
    await app.app.get(WebhookRelay).stop(); // only the second instance fans out now
    const arrivals: number[] = [];
    const listener = new Client({ connectionString: app.databaseUrl });
    try {
      await subscribe(app, tenant, receiver.url('/spread'), ['dispute.resolved']);
      await new Promise((r) => setTimeout(r, 400));
      await listener.connect();
      listener.on('notification', (n) => n.payload === '' && arrivals.push(Date.now()));
      await listener.query(`LISTEN ${OUTBOX_CHANNEL}`);
      const stats = second.app.get(WebhookRelay).stats;
      const before = stats.fanOuts;
      for (let i = 0; i < 20; i++) {
        await emitEvent(app, tenant.tenant_id, 'dispute.resolved');
        await new Promise((r) => setTimeout(r, 40));
      }
      await receiver.waitForCount('/spread', 20, PROMPT);
      await waitUntil(() => arrivals.length >= 20, PROMPT, 'the 20 notifications');
      // Passes start at least 300 ms apart: bounded by the time the notifications spread over (+1 for
      // the first, +1 for one arriving just as a pass starts, +1 for the connections' jitter). On an
      // idle machine 20 commits 40 ms apart spread over about 800 ms: 5 passes at most, not 20.
      const spread = arrivals[arrivals.length - 1] - arrivals[0];
      expect(stats.fanOuts - before).toBeLessThanOrEqual(Math.floor(spread / 300) + 3);
    } finally {
      await listener.end();
      await second.close();
      app.app.get(WebhookRelay).start();
    }
  });

  it('does not start the relay when workers are disabled', async () => {
    const idle = await TestApp.start({ databaseUrl: app.databaseUrl, env: { WORKERS_ENABLED: 'false' } });
    try {
      // Its relay does not listen: the only LISTEN connection is the first instance's (whose relay,
      // settings and clients caches share it), until something of the second one needs its own.
      const [{ n }] = await app.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = '${LISTENER_APPLICATION_NAME}' AND datname = current_database()`,
      );
      expect(n).toBe(1);
    } finally {
      await idle.close();
    }
  });
});

describe('webhook HTTP client', () => {
  let receiver: WebhookReceiver;
  const client = new WebhookHttpClient('test');
  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
  });
  afterAll(async () => {
    client.close();
    await receiver.close();
  });

  it('times out a receiver that does not answer', async () => {
    receiver.on('/hang', () => ({ hang: true }));
    const started = Date.now();
    await expect(
      client.post({ url: new URL(receiver.url('/hang')), body: '{}', headers: {}, timeoutMs: 300, lookup: new WebhookUrlGuard(true).lookup }),
    ).rejects.toThrow('timeout: no response within 300 ms');
    // The receiver never answers: only the timeout ends it (well before jest's own).
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  });

  it('connects to the address its lookup returned, not to a fresh DNS answer', async () => {
    // "hooks.invalid" does not exist in DNS; the guard's resolver says loopback.
    const guard = new WebhookUrlGuard(true, async () => [{ address: '127.0.0.1', family: 4 }]);
    const answer = await client.post({
      url: new URL(`http://hooks.invalid:${receiver.port}/pinned`),
      body: '{"a":1}',
      headers: { 'webhook-id': 'evt_1' },
      timeoutMs: 2_000,
      lookup: guard.lookup,
    });
    expect(answer.status).toBe(200);
    expect(receiver.at('/pinned')[0]).toMatchObject({ body: '{"a":1}', headers: expect.objectContaining({ 'webhook-id': 'evt_1', host: `hooks.invalid:${receiver.port}` }) });
  });

  it('refuses to connect when the guard blocks the resolved address', async () => {
    const guard = new WebhookUrlGuard(false, async () => [{ address: '127.0.0.1', family: 4 }]);
    await expect(
      client.post({ url: new URL(`https://hooks.invalid:${receiver.port}/blocked`), body: '{}', headers: {}, timeoutMs: 2_000, lookup: guard.lookup }),
    ).rejects.toThrow('blocked: hooks.invalid must resolve, and only to public addresses');
    expect(receiver.at('/blocked')).toHaveLength(0);
  });

  it('reports Retry-After and does not follow redirects', async () => {
    receiver.on('/r', () => ({ status: 307, headers: { location: receiver.url('/elsewhere'), 'retry-after': '7' } }));
    const answer = await client.post({ url: new URL(receiver.url('/r')), body: '{}', headers: {}, timeoutMs: 2_000, lookup: new WebhookUrlGuard(true).lookup });
    expect(answer).toEqual({ status: 307, retryAfter: '7' });
    expect(receiver.at('/elsewhere')).toHaveLength(0);
  });
});
