import { Client } from 'pg';
import { DeliveryStore } from '../../../src/modules/webhooks/infrastructure/delivery-store';
import { RelayDatabase } from '../../../src/modules/webhooks/infrastructure/relay-database';
import { WebhookRelay } from '../../../src/modules/webhooks/infrastructure/webhook-relay';
import { newId } from '../../../src/shared/domain/ids';
import { TestApp, TestTenant } from '../../support/test-app';
import { WebhookReceiver } from '../../support/webhook-receiver';
import { emitEvent, subscribe, waitUntil } from './support';

// The relay's passes over the outbox when no delivery is pending anywhere (ADR 0050): the look at
// the deliveries (claim and the read of what falls due) is skipped until a delivery is written,
// and never for longer than the poll interval.
const POLL_MS = 3_000;
const PROMPT = 20_000;

describe('webhook relay with nothing to deliver', () => {
  let app: TestApp;
  let receiver: WebhookReceiver;
  let tenant: TestTenant;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    // The relay reads its settings from the process's environment when the app starts.
    const settings = { WEBHOOK_RELAY_POLL_MS: String(POLL_MS), WEBHOOK_RELAY_COALESCE_MS: '5', WEBHOOK_RELAY_PASS_INTERVAL_MS: '0' };
    const saved = Object.fromEntries(Object.keys(settings).map((k) => [k, process.env[k]]));
    Object.assign(process.env, settings);
    try {
      app = await TestApp.start();
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
    tenant = await app.createTenant();
  });
  afterAll(async () => {
    await app.close();
    await receiver.close();
  });

  const relay = () => app.app.get(WebhookRelay);
  /**
   * An event left to the relay although its tenant has no enabled endpoint (the service writes such
   * events published, ADR 0057; one written otherwise, e.g. under another isolation level, is the
   * relay's to mark), with the NOTIFY a commit sends for it.
   */
  const unpublishedEvent = (tenantId: string) =>
    app.query(
      `WITH written AS (
         INSERT INTO outbox (tenant_id, id, type, aggregate_type, aggregate_id, data, created_at)
         VALUES ($1, $2, 'invoice.created', 'invoice', 'inv_1', '{"object": {"id": "inv_1"}}', now()) RETURNING 1)
       SELECT pg_notify('outbox', '') FROM written`,
      [tenantId, newId('evt')],
    );
  const published = async () => (await app.query(`SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL`))[0].n as number;

  it('publishes the outbox without looking at deliveries while none is pending, and looks again once one is written', async () => {
    await waitUntil(async () => (await published()) === 0, PROMPT, 'the outbox to be published');
    await waitUntil(() => relay().stats.fanOuts > 0, PROMPT, 'a first pass');
    const { stats } = relay();
    const before = { fanOuts: stats.fanOuts, looks: stats.looks };
    const started = Date.now();
    for (let i = 0; i < 10; i++) {
      await unpublishedEvent(tenant.tenant_id);
      await waitUntil(async () => (await published()) === 0, PROMPT, 'the event to be published');
    }
    // Every event was published by a pass of its own or a shared one; a look at the deliveries
    // only when the last one is older than the poll interval (a slow machine), not per pass (+1 for
    // a look in progress when counting began, +1 for the poll interval's edges).
    expect(stats.fanOuts - before.fanOuts).toBeGreaterThanOrEqual(1);
    expect(stats.looks - before.looks).toBeLessThanOrEqual(Math.floor((Date.now() - started) / POLL_MS) + 2);

    // A subscription: the next event's fan-out writes a delivery, which is claimed and sent at once.
    await subscribe(app, tenant, receiver.url('/after-idle'), ['invoice.paid']);
    await emitEvent(app, tenant.tenant_id, 'invoice.paid');
    await receiver.waitForCount('/after-idle', 1, PROMPT);
  });

  it('claims a delivery written without a notice within the poll interval, however often commits wake it', async () => {
    const ep = await subscribe(app, tenant, receiver.url('/unnoticed'), ['invoice.voided']);
    // Nothing pending: the relay knows it after its next look.
    await waitUntil(async () => (await app.query(`SELECT 1 FROM webhook_deliveries WHERE status = 'pending'`)).length === 0, PROMPT, 'no pending delivery');
    const looks = relay().stats.looks;
    await emitEvent(app, tenant.tenant_id, 'invoice.created');
    await waitUntil(() => relay().stats.looks > looks, PROMPT, 'a look that finds nothing pending');
    // A delivery inserted behind the relay's back (no 'deliveries' notice), while commits keep waking
    // it, for an event the endpoint's filter left out (so the fan-out wrote none of its own).
    const eventId = await emitEvent(app, tenant.tenant_id, 'invoice.created');
    await waitUntil(async () => (await published()) === 0, PROMPT, 'the event to be published');
    await app.query(
      `INSERT INTO webhook_deliveries (tenant_id, id, endpoint_id, event_id, event_type, status, next_attempt_at, created_at, updated_at)
       VALUES ($1, $2, $3, $4, 'invoice.created', 'pending', now(), now(), now())`,
      [tenant.tenant_id, newId('whd'), ep.id, eventId],
    );
    const received = receiver.at('/unnoticed').length;
    let stop = false;
    const waking = (async () => {
      while (!stop) {
        await emitEvent(app, tenant.tenant_id, 'invoice.created');
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    try {
      await receiver.waitForCount('/unnoticed', received + 1, PROMPT);
    } finally {
      stop = true;
      await waking;
    }
  });
  it('passes over events of tenants without an enabled endpoint in one statement each', async () => {
    const quiet = await app.createTenant(); // no endpoint
    await waitUntil(async () => (await published()) === 0, PROMPT, 'the outbox to be published');
    const sent: string[] = [];
    const original = Client.prototype.query;
    const spy = jest.spyOn(Client.prototype, 'query').mockImplementation(function (this: Client, ...args: any[]) {
      const q = args[0];
      if ((this as any).connectionParameters?.application_name === 'receivables-api:webhook-relay') sent.push(typeof q === 'string' ? q : q?.text);
      return (original as any).apply(this, args);
    });
    try {
      for (let i = 0; i < 3; i++) {
        await unpublishedEvent(quiet.tenant_id);
        await waitUntil(async () => (await published()) === 0, PROMPT, 'the event to be published');
      }
    } finally {
      spy.mockRestore();
    }
    // Leaving out the heartbeat and the look at the deliveries (made once a poll interval here).
    const passes = sent.filter((sql) => !/^\s*WITH (pruned|alive) AS/.test(sql));
    expect(passes.length).toBeGreaterThanOrEqual(1);
    expect([...new Set(passes)]).toEqual(['SELECT * FROM webhook_outbox_fan_out($1)']);
  });
});

describe('relay database transactions', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await TestApp.start({ env: { WORKERS_ENABLED: 'false' } });
  });
  afterAll(async () => {
    await app.close();
  });

  it('sets the settings given with BEGIN for that transaction only', async () => {
    const db = app.app.get(RelayDatabase);
    const read = (query: (sql: string) => Promise<any[]>) =>
      query(`SELECT current_setting('enable_seqscan') AS seqscan, current_setting('plan_cache_mode') AS plans, pg_current_xact_id_if_assigned() IS NULL AS fresh`);
    const [inside] = await db.transaction((query) => read(query), { enable_seqscan: 'off', plan_cache_mode: 'force_generic_plan' });
    expect(inside).toEqual({ seqscan: 'off', plans: 'force_generic_plan', fresh: true });
    for (let i = 0; i < 3; i++) {
      const [after] = await db.transaction((query) => read(query));
      expect(after).toMatchObject({ seqscan: 'on', plans: 'auto' });
    }
    await db.close();
  });

  it("publishes outbox rows on their own pages: the publishing update's new version stays beside the old one", async () => {
    // Thirty events of about 1.2 kB each (under the TOAST threshold: stored inline, as the service's are).
    const tenant = await app.createTenant();
    await app.query(
      `INSERT INTO outbox (tenant_id, id, type, aggregate_type, aggregate_id, data, created_at)
       SELECT $1, 'evt_page_' || g, 'invoice.created', 'invoice', 'inv_' || g, jsonb_build_object('pad', repeat(md5(g::text), 36)), now()
         FROM generate_series(1, 30) g`,
      [tenant.tenant_id],
    );
    const pages = async () =>
      new Map(
        (
          await app.query(`SELECT id, (ctid::text::point)[0]::int AS page, published_at IS NOT NULL AS published FROM outbox WHERE tenant_id = $1`, [
            tenant.tenant_id,
          ])
        ).map((r: { id: string; page: number; published: boolean }) => [r.id, r]),
      );
    const before = await pages();
    const store = app.app.get(DeliveryStore);
    while ((await store.fanOut(200)).events > 0);
    const after = await pages();
    expect(after.size).toBe(30);
    for (const [id, row] of after) expect({ id, page: row.page, published: row.published }).toEqual({ id, page: before.get(id)!.page, published: true });
  });
});
