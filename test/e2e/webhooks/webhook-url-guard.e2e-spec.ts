import { expectProblem, TestApp, TestTenant } from '../../support/test-app';
import { WebhookReceiver } from '../../support/webhook-receiver';
import { deliveries, emitEvent, waitUntil } from './support';

process.env.WEBHOOK_RELAY_POLL_MS = '300';

/** The service as deployed: WEBHOOK_ALLOW_PRIVATE_URLS off. */
describe('webhook URL guard (private URLs not allowed)', () => {
  let app: TestApp;
  let receiver: WebhookReceiver;
  let tenant: TestTenant;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    app = await TestApp.start({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'false', WEBHOOK_RETRY_SCHEDULE: '0', WEBHOOK_TIMEOUT_MS: '1000' } });
    tenant = await app.createTenant();
  });
  afterAll(async () => {
    await app.close();
    await receiver.close();
  });

  it.each([
    `http://127.0.0.1:8080/hook`,
    'http://93.184.215.14/hook',
    'https://127.0.0.1/hook',
    'https://localhost/hook',
    'https://10.0.0.1/hook',
    'https://172.16.5.4/hook',
    'https://192.168.1.20/hook',
    'https://169.254.169.254/latest/meta-data/',
    'https://100.100.100.200/hook',
    'https://[::1]/hook',
    'https://[::ffff:10.0.0.1]/hook',
    'https://[fd00:ec2::254]/hook',
    'https://[fe80::1]/hook',
    'https://0.0.0.0/hook',
  ])('refuses to register %s', async (url) => {
    const res = await app.post('/api/v1/webhooks', { url, events: ['*'] }, tenant.token);
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors[0]).toMatchObject({ field: 'url', code: 'invalid_url' });
  });

  it('refuses to move an endpoint to a private URL', async () => {
    const created = await app.post('/api/v1/webhooks', { url: 'https://93.184.215.14/hook', events: ['*'] }, tenant.token);
    expect(created.status).toBe(201);
    expectProblem(await app.patch(`/api/v1/webhooks/${created.body.id}`, { url: 'https://127.0.0.1/x' }, tenant.token), 400, 'validation_failed');
    await app.delete(`/api/v1/webhooks/${created.body.id}`, tenant.token);
  });

  it('checks again at delivery: a stored URL that now points inside is never connected to', async () => {
    // As if the name had resolved publicly at registration and was re-pointed since (DNS rebinding):
    // the row is written directly, past the registration check.
    const id = 'wh_01kaaaaaaaaaaaaaaaaaaaaaaa';
    for (const [suffix, url] of [
      ['a', `https://localhost:${receiver.port}/rebound`],
      ['b', `https://127.0.0.1:${receiver.port}/literal`],
      ['c', receiver.url('/plain-http')],
    ]) {
      await app.query(
        `INSERT INTO webhook_endpoints (tenant_id, id, url, events, status, secret, version, created_at, updated_at)
         VALUES ($1, $2, $3, '{*}', 'enabled', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw7Iu2qDf5Em4=', 1, now(), now())`,
        [tenant.tenant_id, id.slice(0, -1) + suffix, url],
      );
    }
    await emitEvent(app, tenant.tenant_id, 'invoice.created');
    for (const suffix of ['a', 'b', 'c']) {
      await waitUntil(async () => (await deliveries(app, tenant, id.slice(0, -1) + suffix))[0]?.status === 'failed', 20_000);
    }
    const [a] = await deliveries(app, tenant, id.slice(0, -1) + 'a');
    const [b] = await deliveries(app, tenant, id.slice(0, -1) + 'b');
    const [c] = await deliveries(app, tenant, id.slice(0, -1) + 'c');
    expect(a).toMatchObject({ status: 'failed', attempts: 2, last_response_code: null });
    // a tenant reads last_error: what an internal name resolves to is not shown
    expect(a.last_error).toBe('blocked: localhost must resolve, and only to public addresses');
    expect(b.last_error).toBe('blocked: 127.0.0.1 is a loopback address');
    expect(c.last_error).toBe('blocked: webhooks are sent over https only');
    expect(receiver.received).toHaveLength(0);
  });
});
