import { Webhook } from 'standardwebhooks';
import { expectProblem, TestApp, TestTenant } from '../../support/test-app';
import { WebhookReceiver } from '../../support/webhook-receiver';

process.env.WEBHOOK_RELAY_POLL_MS = '500';

describe('webhook endpoints API', () => {
  let app: TestApp;
  let receiver: WebhookReceiver;
  let acme: TestTenant;
  let other: TestTenant;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    app = await TestApp.start({ env: { WEBHOOK_RETRY_SCHEDULE: '0,0', WEBHOOK_TIMEOUT_MS: '2000' } });
    [acme, other] = await Promise.all([app.createTenant('Acme'), app.createTenant('Other')]);
  });
  afterAll(async () => {
    await app.close();
    await receiver.close();
  });

  const create = (t: TestTenant, body: Record<string, unknown>) => app.post('/api/v1/webhooks', body, t.token);

  it('creates an endpoint and shows the secret only once', async () => {
    const res = await create(acme, { url: receiver.url('/a'), events: ['invoice.paid', 'payment.*'], description: 'ERP' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^wh_[0-9a-z]{26}$/),
      url: receiver.url('/a'),
      events: ['invoice.paid', 'payment.*'],
      status: 'enabled',
      disabled_reason: null,
      description: 'ERP',
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updated_at: expect.any(String),
    });
    // The secret is a usable Standard Webhooks key.
    expect(() => new Webhook(res.body.secret)).not.toThrow();

    const got = await app.get(`/api/v1/webhooks/${res.body.id}`, acme.token);
    expect(got.status).toBe(200);
    expect(got.body).not.toHaveProperty('secret');
    expect(got.body).toEqual({ ...res.body, secret: undefined });

    const list = await app.get('/api/v1/webhooks', acme.token);
    expect(list.status).toBe(200);
    expect(list.body.data.map((e: any) => e.id)).toContain(res.body.id);
    expect(list.body.data.every((e: any) => !('secret' in e))).toBe(true);
  });

  it('refuses unknown event types, empty lists and unknown fields with 400', async () => {
    const unknown = await create(acme, { url: receiver.url(), events: ['invoice.paid', 'invoice.sent'] });
    expectProblem(unknown, 400, 'validation_failed');
    expect(unknown.body.errors).toEqual([expect.objectContaining({ field: 'events[1]', code: 'unknown_event_type' })]);
    expectProblem(await create(acme, { url: receiver.url(), events: ['customer.*'] }), 400, 'validation_failed');
    expectProblem(await create(acme, { url: receiver.url(), events: [] }), 400, 'validation_failed');
    expectProblem(await create(acme, { url: receiver.url(), events: ['*'], secret: 'mine' }), 400, 'validation_failed');
    expectProblem(await create(acme, { url: 'not a url', events: ['*'] }), 400, 'validation_failed');
    expectProblem(await create(acme, { url: 'ftp://127.0.0.1/x', events: ['*'] }), 400, 'validation_failed');
    expectProblem(await create(acme, { events: ['*'] }), 400, 'validation_failed');
  });

  it('accepts exact types, family wildcards and * and drops duplicates', async () => {
    const res = await create(acme, { url: receiver.url(), events: ['dispute.*', '*', 'invoice.overdue', 'dispute.*'] });
    expect(res.status).toBe(201);
    expect(res.body.events).toEqual(['dispute.*', '*', 'invoice.overdue']);
  });

  it('updates url, events, description and status', async () => {
    const { body: created } = await create(acme, { url: receiver.url('/u1'), events: ['*'] });
    const res = await app.patch(
      `/api/v1/webhooks/${created.id}`,
      { url: receiver.url('/u2'), events: ['invoice.*'], description: 'changed', status: 'disabled' },
      acme.token,
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ url: receiver.url('/u2'), events: ['invoice.*'], description: 'changed', status: 'disabled', disabled_reason: 'manual' });
    expect(res.body).not.toHaveProperty('secret');
    const enabled = await app.patch(`/api/v1/webhooks/${created.id}`, { status: 'enabled', description: null }, acme.token);
    expect(enabled.body).toMatchObject({ status: 'enabled', disabled_reason: null, description: null });
    expectProblem(await app.patch(`/api/v1/webhooks/${created.id}`, { status: 'paused' }, acme.token), 400, 'validation_failed');
    expectProblem(await app.patch(`/api/v1/webhooks/${created.id}`, { events: ['nope'] }, acme.token), 400, 'validation_failed');
    expectProblem(await app.patch(`/api/v1/webhooks/${created.id}`, { secret: 'x' }, acme.token), 400, 'validation_failed');
  });

  it('deletes an endpoint', async () => {
    const { body: created } = await create(acme, { url: receiver.url(), events: ['*'] });
    const res = await app.delete(`/api/v1/webhooks/${created.id}`, acme.token);
    expect(res.status).toBe(204);
    expectProblem(await app.get(`/api/v1/webhooks/${created.id}`, acme.token), 404, 'not_found');
    expectProblem(await app.delete(`/api/v1/webhooks/${created.id}`, acme.token), 404, 'not_found');
  });

  it("never shows or changes another tenant's endpoints; malformed ids are 404", async () => {
    const { body: mine } = await create(acme, { url: receiver.url(), events: ['*'] });
    const id = mine.id;
    expectProblem(await app.get(`/api/v1/webhooks/${id}`, other.token), 404, 'not_found');
    expectProblem(await app.patch(`/api/v1/webhooks/${id}`, { description: 'x' }, other.token), 404, 'not_found');
    expectProblem(await app.delete(`/api/v1/webhooks/${id}`, other.token), 404, 'not_found');
    expectProblem(await app.post(`/api/v1/webhooks/${id}/rotate-secret`, {}, other.token), 404, 'not_found');
    expectProblem(await app.post(`/api/v1/webhooks/${id}/test`, {}, other.token), 404, 'not_found');
    expectProblem(await app.get(`/api/v1/webhooks/${id}/deliveries`, other.token), 404, 'not_found');
    expectProblem(await app.get('/api/v1/webhooks/wh_nope', acme.token), 404, 'not_found');
    expectProblem(await app.get('/api/v1/webhooks/inv_01jc9x7m3ef0ab6yr2t0n4q8zd', acme.token), 404, 'not_found');
    const list = await app.get('/api/v1/webhooks?limit=100', other.token);
    expect(list.body.data.map((e: any) => e.id)).not.toContain(id);
  });

  it('paginates with a cursor and a Link header', async () => {
    const t = await app.createTenant('Pages');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await create(t, { url: receiver.url(), events: ['*'] })).body.id);
    const first = await app.get('/api/v1/webhooks?limit=2', t.token);
    expect(first.status).toBe(200);
    expect(first.body.data.map((e: any) => e.id)).toEqual([ids[4], ids[3]]);
    expect(first.body.has_more).toBe(true);
    expect(first.headers.get('link')).toBe(`</api/v1/webhooks?limit=2&cursor=${first.body.next_cursor}>; rel="next"`);
    const second = await app.get(`/api/v1/webhooks?limit=2&cursor=${first.body.next_cursor}`, t.token);
    expect(second.body.data.map((e: any) => e.id)).toEqual([ids[2], ids[1]]);
    const third = await app.get(`/api/v1/webhooks?limit=2&cursor=${second.body.next_cursor}`, t.token);
    expect(third.body).toEqual({ data: [expect.objectContaining({ id: ids[0] })], has_more: false, next_cursor: null });
    expect(third.headers.get('link')).toBeNull();
    const asc = await app.get('/api/v1/webhooks?sort=created_at&limit=5', t.token);
    expect(asc.body.data.map((e: any) => e.id)).toEqual(ids);
    expectProblem(await app.get(`/api/v1/webhooks?limit=2&sort=created_at&cursor=${first.body.next_cursor}`, t.token), 400, 'validation_failed');
    expectProblem(await app.get('/api/v1/webhooks?limit=0', t.token), 400, 'validation_failed');
    expectProblem(await app.get('/api/v1/webhooks?limit=101', t.token), 400, 'validation_failed');
    expectProblem(await app.get('/api/v1/webhooks?limit=abc', t.token), 400, 'validation_failed');
    expectProblem(await app.get('/api/v1/webhooks?sort=url', t.token), 400, 'validation_failed');
    expectProblem(await app.get('/api/v1/webhooks?cursor=garbage', t.token), 400, 'validation_failed');
    expectProblem(await app.get('/api/v1/webhooks?status=paused', t.token), 400, 'validation_failed');
  });

  it('requires webhooks:read to read and webhooks:write to change', async () => {
    const reader = await app.createClient(acme.tenant_id, 'webhooks:read');
    const writer = await app.createClient(acme.tenant_id, 'webhooks:write');
    const none = await app.createClient(acme.tenant_id, 'invoices:read');
    expect((await app.get('/api/v1/webhooks', reader.token)).status).toBe(200);
    expectProblem(await app.get('/api/v1/webhooks', none.token), 403, 'forbidden');
    expectProblem(await app.post('/api/v1/webhooks', { url: receiver.url(), events: ['*'] }, reader.token), 403, 'forbidden');
    const created = await app.post('/api/v1/webhooks', { url: receiver.url(), events: ['*'] }, writer.token);
    expect(created.status).toBe(201);
    expectProblem(await app.get(`/api/v1/webhooks/${created.body.id}/deliveries`, writer.token), 403, 'forbidden');
    expectProblem(await app.post(`/api/v1/webhooks/${created.body.id}/test`, {}, reader.token), 403, 'forbidden');
    expectProblem(await app.get('/api/v1/webhooks'), 401, 'unauthorized');
  });

  it('sends a signed webhook.test ping to that endpoint only and lists the delivery', async () => {
    const { body: ep } = await create(acme, { url: receiver.url('/ping'), events: ['invoice.paid'] });
    const { body: bystander } = await create(acme, { url: receiver.url('/bystander'), events: ['*'] });
    const res = await app.post(`/api/v1/webhooks/${ep.id}/test`, {}, acme.token);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ id: expect.stringMatching(/^whd_/), webhook_id: ep.id, event_type: 'webhook.test', status: 'pending', attempts: 0 });
    const [ping] = await receiver.waitForCount('/ping', 1);
    expect(WebhookReceiver.verify(ping, ep.secret)).toMatchObject({ id: res.body.event_id, type: 'webhook.test' });
    expect(ping.headers['webhook-id']).toBe(res.body.event_id);
    expect(ping.event.data.object).toMatchObject({ id: ep.id, url: ep.url });
    expect(ping.event.data.object).not.toHaveProperty('secret');

    await waitUntil(async () => (await app.get(`/api/v1/webhooks/${ep.id}/deliveries`, acme.token)).body.data[0]?.status === 'succeeded');
    const deliveries = await app.get(`/api/v1/webhooks/${ep.id}/deliveries`, acme.token);
    expect(deliveries.body.data).toEqual([
      expect.objectContaining({ id: res.body.id, status: 'succeeded', attempts: 1, last_response_code: 200, last_error: null, next_attempt_at: null }),
    ]);
    expect(receiver.at('/bystander')).toHaveLength(0);
    expect((await app.get(`/api/v1/webhooks/${bystander.id}/deliveries`, acme.token)).body.data).toEqual([]);
    expectProblem(await app.get(`/api/v1/webhooks/${ep.id}/deliveries?status=done`, acme.token), 400, 'validation_failed');
    expect((await app.get(`/api/v1/webhooks/${ep.id}/deliveries?status=failed,pending`, acme.token)).body.data).toEqual([]);
  });

  it('pages through deliveries newest first', async () => {
    const { body: ep } = await create(acme, { url: receiver.url('/paged'), events: ['*'] });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await app.post(`/api/v1/webhooks/${ep.id}/test`, {}, acme.token)).body.id);
    const first = await app.get(`/api/v1/webhooks/${ep.id}/deliveries?limit=2`, acme.token);
    expect(first.body.data.map((d: any) => d.id)).toEqual([ids[2], ids[1]]);
    expect(first.headers.get('link')).toBe(`</api/v1/webhooks/${ep.id}/deliveries?limit=2&cursor=${first.body.next_cursor}>; rel="next"`);
    const second = await app.get(`/api/v1/webhooks/${ep.id}/deliveries?limit=2&cursor=${first.body.next_cursor}`, acme.token);
    expect(second.body).toMatchObject({ data: [expect.objectContaining({ id: ids[0] })], has_more: false, next_cursor: null });
    const byEvent = await app.get(`/api/v1/webhooks/${ep.id}/deliveries?event_id=${first.body.data[0].event_id}`, acme.token);
    expect(byEvent.body.data.map((d: any) => d.id)).toEqual([ids[2]]);
    expectProblem(await app.get(`/api/v1/webhooks/${ep.id}/deliveries?limit=2&event_type=webhook.test&cursor=${first.body.next_cursor}`, acme.token), 400, 'validation_failed');
    expectProblem(await app.get(`/api/v1/webhooks/${ep.id}/deliveries?event_type=invoice.sent`, acme.token), 400, 'validation_failed');
  });

  it('refuses a test ping to a disabled endpoint with 409', async () => {
    const { body: ep } = await create(acme, { url: receiver.url(), events: ['*'] });
    await app.patch(`/api/v1/webhooks/${ep.id}`, { status: 'disabled' }, acme.token);
    expectProblem(await app.post(`/api/v1/webhooks/${ep.id}/test`, {}, acme.token), 409, 'invalid_state');
  });

  it('rotates the secret: deliveries carry both signatures during the overlap, then only the new one', async () => {
    const { body: ep } = await create(acme, { url: receiver.url('/rotate'), events: ['*'] });
    const rotated = await app.post(`/api/v1/webhooks/${ep.id}/rotate-secret`, {}, acme.token);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(ep.secret);
    expect(Date.parse(rotated.body.previous_secret_expires_at) - Date.now()).toBeGreaterThan(86_000_000);

    await app.post(`/api/v1/webhooks/${ep.id}/test`, {}, acme.token);
    const [first] = await receiver.waitForCount('/rotate', 1);
    expect(first.headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(() => WebhookReceiver.verify(first, rotated.body.secret)).not.toThrow();
    expect(() => WebhookReceiver.verify(first, ep.secret)).not.toThrow();

    const immediate = await app.post(`/api/v1/webhooks/${ep.id}/rotate-secret`, { overlap_seconds: 0 }, acme.token);
    expect(immediate.body.previous_secret_expires_at).toBeNull();
    await app.post(`/api/v1/webhooks/${ep.id}/test`, {}, acme.token);
    const [, second] = await receiver.waitForCount('/rotate', 2);
    expect(second.headers['webhook-signature'].split(' ')).toHaveLength(1);
    expect(() => WebhookReceiver.verify(second, immediate.body.secret)).not.toThrow();
    expect(() => WebhookReceiver.verify(second, rotated.body.secret)).toThrow();
    expectProblem(await app.post(`/api/v1/webhooks/${ep.id}/rotate-secret`, { overlap_seconds: -1 }, acme.token), 400, 'validation_failed');
  });

  it('replays a creation with the same Idempotency-Key instead of creating a second endpoint', async () => {
    const headers = { 'Idempotency-Key': 'wh-create-1' };
    const first = await app.post('/api/v1/webhooks', { url: receiver.url('/idem'), events: ['*'] }, other.token, headers);
    const again = await app.post('/api/v1/webhooks', { url: receiver.url('/idem'), events: ['*'] }, other.token, headers);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
  });

  it('documents every webhooks operation in the OpenAPI document', async () => {
    const doc = (await app.get('/api/v1/openapi.json')).body;
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/webhooks',
        '/api/v1/webhooks/{id}',
        '/api/v1/webhooks/{id}/rotate-secret',
        '/api/v1/webhooks/{id}/test',
        '/api/v1/webhooks/{id}/deliveries',
      ]),
    );
    expect(Object.keys(doc.paths['/api/v1/webhooks/{id}'])).toEqual(expect.arrayContaining(['get', 'patch', 'delete']));
    expect(doc.paths['/api/v1/webhooks'].post.responses['201']).toBeDefined();
  });
});

async function waitUntil(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
