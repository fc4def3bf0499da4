import { Client } from 'pg';
import { expectProblem, TestApp, TestTenant } from '../../support/test-app';

/** Idempotency-Key on POST (contract §11), on POST /api/v1/customers. */
describe('Idempotency-Key', () => {
  let app: TestApp;
  let acme: TestTenant;
  let globex: TestTenant;

  beforeAll(async () => {
    app = await TestApp.start();
    [acme, globex] = [await app.createTenant('Acme'), await app.createTenant('Globex')];
  });
  afterAll(() => app.close());

  const create = (t: TestTenant, key: string | undefined, body: Record<string, unknown>) =>
    app.post('/api/v1/customers', body, t.token, key === undefined ? {} : { 'idempotency-key': key });
  const countNamed = async (name: string) => Number((await app.query('SELECT count(*) AS n FROM customers WHERE name = $1', [name]))[0].n);

  it('replays the first response for the same key and body, and creates the resource once', async () => {
    const body = { name: 'Replay Ltd', currency: 'usd' };
    const first = await create(acme, 'key-replay-1', body);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await create(acme, 'key-replay-1', body);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await countNamed('Replay Ltd')).toBe(1);
  });

  it('replays a created invoice with its ETag, so If-Match works from the replayed answer (issue 13 finding 10)', async () => {
    const customer = (await create(acme, undefined, { name: 'ETag Ltd', currency: 'usd' })).body;
    const body = { customer_id: customer.id, line_items: [{ description: 'Work', quantity: 1, unit_amount: 5_000 }] };
    const post = () => app.post('/api/v1/invoices', body, acme.token, { 'idempotency-key': 'key-invoice-etag' });
    const first = await post();
    expect(first.status).toBe(201);
    expect(first.headers.get('etag')).toBe('"1"');
    const again = await post();
    expect({ status: again.status, replayed: again.headers.get('idempotent-replayed'), etag: again.headers.get('etag') }).toEqual({ status: 201, replayed: 'true', etag: '"1"' });
    const patched = await app.patch(`/api/v1/invoices/${again.body.id}`, { memo: 'from the replay' }, acme.token, { 'if-match': again.headers.get('etag')! });
    expect(patched.status).toBe(200);
  });

  it('refuses the same key with another body: 422 idempotency_key_reused', async () => {
    expect((await create(acme, 'key-reused', { name: 'First Body', currency: 'usd' })).status).toBe(201);
    expectProblem(await create(acme, 'key-reused', { name: 'Other Body', currency: 'usd' }), 422, 'idempotency_key_reused');
    expect(await countNamed('Other Body')).toBe(0);
  });

  it('keeps keys per tenant: the same key in another tenant is a new request', async () => {
    const body = { name: 'Per Tenant', currency: 'eur' };
    const a = await create(acme, 'shared-key', body);
    const b = await create(globex, 'shared-key', body);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expect(b.body.id).not.toBe(a.body.id);
    expect(await countNamed('Per Tenant')).toBe(2);
  });

  it('does not store failures: a key whose first request failed validation can be used again', async () => {
    expectProblem(await create(acme, 'key-after-error', { name: 'Broken', currency: 'usd', colour: 'red' }), 400, 'validation_failed');
    const ok = await create(acme, 'key-after-error', { name: 'Fixed', currency: 'usd' });
    expect(ok.status).toBe(201);
    expect(ok.headers.get('idempotent-replayed')).toBeNull();
  });

  it('refuses a key longer than 255 characters', async () => {
    expectProblem(await create(acme, 'k'.repeat(256), { name: 'Long Key', currency: 'usd' }), 400, 'validation_failed');
    expect((await create(acme, 'k'.repeat(255), { name: 'Long Key', currency: 'usd' })).status).toBe(201);
  });

  it('answers 409 idempotency_key_in_use to a concurrent duplicate while the first is in flight', async () => {
    // Hold the first request inside its transaction: a SHARE lock on idempotency_keys lets it
    // read but blocks the row it writes at the end, so it stays in flight until we let go.
    const blocker = new Client({ connectionString: app.databaseUrl });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE idempotency_keys IN SHARE MODE');
      const body = { name: 'Concurrent Co', currency: 'usd' };
      const both = [create(acme, 'key-concurrent', body), create(acme, 'key-concurrent', body)];
      const loser = await Promise.race(both);
      expectProblem(loser, 409, 'idempotency_key_in_use');
      // The other is still waiting on the lock, so it has not been answered.
      const pending = await Promise.race([Promise.all(both).then(() => 'answered'), new Promise((r) => setTimeout(() => r('pending'), 200))]);
      expect(pending).toBe('pending');
      await blocker.query('ROLLBACK');
      const statuses = (await Promise.all(both)).map((r) => r.status).sort();
      expect(statuses).toEqual([201, 409]);
      expect(await countNamed('Concurrent Co')).toBe(1);
      // Once committed, the key replays.
      const replay = await create(acme, 'key-concurrent', body);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
    } finally {
      await blocker.query('ROLLBACK').catch(() => undefined);
      await blocker.end();
    }
  });

  it('ignores the header on requests without a bearer token (the token endpoint)', async () => {
    const res = await app.post(
      '/api/v1/auth/token',
      { grant_type: 'client_credentials', client_id: acme.client_id, client_secret: acme.client_secret },
      undefined,
      { 'idempotency-key': 'token-key' },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
  });
});
