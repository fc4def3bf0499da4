import { Client } from 'pg';
import { TestApp } from '../../support/test-app';
import { WebhookReceiver } from '../../support/webhook-receiver';
import { subscribe } from './support';

// The relay's pass in one statement (`webhook_outbox_fan_out`, ADR 0050), answered without joining
// its batch to the rows it marked (ADR 0051).
describe('webhook_outbox_fan_out', () => {
  let app: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    // No relay of its own: the function is called here only.
    app = await TestApp.start({ env: { WORKERS_ENABLED: 'false' } });
  });
  afterAll(async () => {
    await app.close();
    await receiver.close();
  });

  const events = async (tenantId: string, prefix: string, count: number) =>
    app.query(
      `INSERT INTO outbox (tenant_id, id, type, aggregate_type, aggregate_id, data, created_at)
       SELECT $1, $2 || g, 'invoice.created', 'invoice', 'inv_' || g, jsonb_build_object('pad', repeat(md5(g::text), 36)), now()
         FROM generate_series(1, $3::int) g`,
      [tenantId, prefix, count],
    );

  it('marks the events of tenants without an enabled endpoint and answers the others with each endpoint', async () => {
    await app.query(`UPDATE outbox SET published_at = now() WHERE published_at IS NULL`);
    const alone = await app.createTenant('Alone');
    const subscribed = await app.createTenant('Subscribed');
    const first = await subscribe(app, subscribed, receiver.url('/a'), ['invoice.created']);
    const second = await subscribe(app, subscribed, receiver.url('/b'), ['invoice.paid']);
    await events(alone.tenant_id, 'evt_alone_', 3);
    await events(subscribed.tenant_id, 'evt_sub_', 2);

    const rows = await app.query(`SELECT * FROM webhook_outbox_fan_out(200)`);
    const key = (r: any) => `${r.event_id}|${r.endpoint_id}`;
    expect([...rows].sort((a, b) => key(a).localeCompare(key(b)))).toEqual(
      [
        ...[1, 2, 3].map((n) => ({ event_tenant_id: alone.tenant_id, event_id: `evt_alone_${n}`, event_type: 'invoice.created', published: true, endpoint_id: null, filters: null })),
        ...[1, 2].flatMap((n) => [
          { event_tenant_id: subscribed.tenant_id, event_id: `evt_sub_${n}`, event_type: 'invoice.created', published: false, endpoint_id: first.id, filters: ['invoice.created'] },
          { event_tenant_id: subscribed.tenant_id, event_id: `evt_sub_${n}`, event_type: 'invoice.created', published: false, endpoint_id: second.id, filters: ['invoice.paid'] },
        ]),
      ].sort((a, b) => key(a).localeCompare(key(b))),
    );
    const unpublished = await app.query(`SELECT id FROM outbox WHERE published_at IS NULL ORDER BY id`);
    expect(unpublished.map((r: { id: string }) => r.id)).toEqual(['evt_sub_1', 'evt_sub_2']);
    await app.query(`UPDATE outbox SET published_at = now() WHERE published_at IS NULL`);
  });

  it('reads the rows a pass marked once, not once per event of its batch', async () => {
    const tenant = await app.createTenant('Many');
    await events(tenant.tenant_id, 'evt_many_', 200);
    // The function's statement, planned as the function plans it (its settings, a generic plan),
    // run under EXPLAIN ANALYZE and rolled back.
    const [{ src }] = await app.query(`SELECT prosrc AS src FROM pg_proc WHERE proname = 'webhook_outbox_fan_out'`);
    const statement = /RETURN QUERY([\s\S]*);\s*END/.exec(src)![1].replace(/\bp_limit\b/g, '$1');
    const client = new Client({ connectionString: app.databaseUrl });
    await client.connect();
    try {
      await client.query(`BEGIN`);
      await client.query(`SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off; SET LOCAL plan_cache_mode = force_generic_plan`);
      await client.query(`PREPARE pass (integer) AS ${statement}`);
      const [{ 'QUERY PLAN': [{ Plan: plan }] }] = (await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE pass(200)`)).rows;
      await client.query(`ROLLBACK`);
      const nodes = (node: any): any[] => [node, ...(node.Plans ?? []).flatMap(nodes)];
      expect(plan['Actual Rows']).toBe(200);
      // Joined to its marked rows, the answer read them once per event of the batch (a nested loop,
      // 200 loops over 200 rows: 39,800 removed by its join filter). Each row set is read once now.
      const cteScans = nodes(plan).filter((n) => n['Node Type'] === 'CTE Scan');
      expect(cteScans.map((n) => ({ cte: n['CTE Name'], loops: n['Actual Loops'] }))).toEqual(cteScans.map((n) => ({ cte: n['CTE Name'], loops: 1 })));
    } finally {
      await client.end();
    }
  });
});
