import { createHash } from 'node:crypto';
import { IdempotencySecretsNotStored1764300000000 } from '../../../src/migrations/1764300000000-idempotency-secrets-not-stored';
import { TestApp, TestTenant } from '../../support/test-app';
import { WebhookReceiver } from '../../support/webhook-receiver';

/**
 * Issue 12 finding 17 (docs/adr/0031): an idempotent replay of a response that carried a
 * webhook secret never reveals a secret the endpoint no longer has, and the stored response
 * does not hold the secret at all.
 */
describe('idempotent replays of webhook secrets', () => {
  let app: TestApp;
  let receiver: WebhookReceiver;
  let acme: TestTenant;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    app = await TestApp.start();
    acme = await app.createTenant('Acme');
  });
  afterAll(async () => {
    await app?.close();
    await receiver?.close();
  });

  const createWith = (key: string, path: string) => app.post('/api/v1/webhooks', { url: receiver.url(path), events: ['*'] }, acme.token, { 'idempotency-key': key });
  const storedBody = async (key: string) =>
    (await app.query(`SELECT response_body, secret_sha256 FROM idempotency_keys WHERE tenant_id = $1 AND key = $2`, [acme.tenant_id, key]))[0];

  it('stores the response without the secret, and a replay shows it while the endpoint still has it', async () => {
    const first = await createWith('wh-live', '/live');
    expect(first.status).toBe(201);
    expect(first.body.secret).toMatch(/^whsec_/);
    const stored = await storedBody('wh-live');
    expect(stored.response_body.secret).toBeNull();
    expect(JSON.stringify(stored)).not.toContain(first.body.secret.slice(6));
    expect(stored.secret_sha256).toMatch(/^[0-9a-f]{64}$/);

    const again = await createWith('wh-live', '/live');
    expect({ status: again.status, replayed: again.headers.get('idempotent-replayed') }).toEqual({ status: 201, replayed: 'true' });
    expect(again.body).toEqual(first.body);
  });

  it('a replay after the endpoint was deleted answers the stored response with secret: null', async () => {
    const first = await createWith('wh-deleted', '/deleted');
    expect(first.status).toBe(201);
    expect((await app.delete(`/api/v1/webhooks/${first.body.id}`, acme.token)).status).toBe(204);

    const again = await createWith('wh-deleted', '/deleted');
    expect({ status: again.status, replayed: again.headers.get('idempotent-replayed') }).toEqual({ status: 201, replayed: 'true' });
    expect(again.body).toEqual({ ...first.body, secret: null });
    expect(again.text).not.toContain(first.body.secret);
    // Nothing was created again.
    expect((await app.get(`/api/v1/webhooks/${first.body.id}`, acme.token)).status).toBe(404);
  });

  it('a replay after the secret was rotated shows neither the old secret nor the new one', async () => {
    const first = await createWith('wh-rotated', '/rotated');
    const rotate = () => app.post(`/api/v1/webhooks/${first.body.id}/rotate-secret`, { overlap_seconds: 0 }, acme.token, { 'idempotency-key': 'wh-rotate-1' });
    const rotated = await rotate();
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(first.body.secret);

    const replayedCreate = await createWith('wh-rotated', '/rotated');
    expect(replayedCreate.body.secret).toBeNull();
    expect(replayedCreate.text).not.toContain(rotated.body.secret);

    // The rotation's own replay shows its secret while it is the live one, and null once rotated again.
    expect((await rotate()).body).toEqual(rotated.body);
    expect((await app.post(`/api/v1/webhooks/${first.body.id}/rotate-secret`, { overlap_seconds: 0 }, acme.token)).status).toBe(200);
    const stale = await rotate();
    expect({ status: stale.status, replayed: stale.headers.get('idempotent-replayed') }).toEqual({ status: 200, replayed: 'true' });
    expect(stale.body).toEqual({ ...rotated.body, secret: null });
  });

  it('a response without a secret is stored and replayed as before', async () => {
    const post = () => app.post('/api/v1/customers', { name: 'Plain Ltd', currency: 'usd' }, acme.token, { 'idempotency-key': 'plain' });
    const first = await post();
    expect((await post()).body).toEqual(first.body);
    expect((await storedBody('plain')).secret_sha256).toBeNull();
  });

  it('the migration takes the secrets out of responses stored before it, and their replays still work', async () => {
    const first = await createWith('wh-legacy', '/legacy');
    // As stored before the migration: the secret in the body, no hash.
    await app.query(`UPDATE idempotency_keys SET response_body = jsonb_set(response_body, '{secret}', to_jsonb($3::text)) WHERE tenant_id = $1 AND key = $2`, [
      acme.tenant_id,
      'wh-legacy',
      first.body.secret,
    ]);
    await app.query(`ALTER TABLE idempotency_keys DROP COLUMN secret_sha256`);
    try {
      await new IdempotencySecretsNotStored1764300000000().up({ query: (sql: string) => app.query(sql) } as never);
    } finally {
      await app.query(`ALTER TABLE idempotency_keys ADD COLUMN IF NOT EXISTS secret_sha256 text`);
    }
    const stored = await storedBody('wh-legacy');
    expect(stored).toEqual({ response_body: { ...first.body, secret: null }, secret_sha256: createHash('sha256').update(first.body.secret).digest('hex') });
    expect((await createWith('wh-legacy', '/legacy')).body).toEqual(first.body);
    expect((await storedBody('plain')).secret_sha256).toBeNull();
  });
});
