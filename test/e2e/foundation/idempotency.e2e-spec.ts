import { Client } from 'pg';
import { LOOKUP_SQL } from '../../../src/shared/infrastructure/idempotency/idempotency.interceptor';
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

  it('a first request that commits between a duplicate\'s lookup and its lock: the duplicate answers 409 and commits nothing', async () => {
    // The key's lock and its stored response are read in one statement, whose snapshot is taken
    // before the lock: the first request's response, committed in that instant, is not seen.
    // Reproduced by committing a response for the key right after the duplicate's lookup.
    const body = { name: 'Raced Co', currency: 'usd' };
    const original = Client.prototype.query;
    const spy = jest.spyOn(Client.prototype, 'query').mockImplementation(function (this: Client, ...args: any[]) {
      const q = args[0];
      const result = (original as any).apply(this, args);
      if (typeof q !== 'object' || q?.text !== LOOKUP_SQL || q.values?.[2] !== 'key-raced') return result;
      return result.then(async (res: unknown) => {
        await app.query(
          `INSERT INTO idempotency_keys (tenant_id, key, request_hash, response_status, response_body, response_headers, created_at, expires_at)
           VALUES ($1, 'key-raced', 'first', 201, '{"first": true}', '{}', now(), now() + interval '1 hour')`,
          [acme.tenant_id],
        );
        return res;
      });
    });
    try {
      const res = await create(acme, 'key-raced', body);
      expectProblem(res, 409, 'idempotency_key_in_use');
    } finally {
      spy.mockRestore();
    }
    expect(await countNamed('Raced Co')).toBe(0);
    const [stored] = await app.query('SELECT request_hash FROM idempotency_keys WHERE tenant_id = $1 AND key = $2', [acme.tenant_id, 'key-raced']);
    expect(stored.request_hash).toBe('first');
  });

  it('replaces an expired response under a key: the key is a new request again', async () => {
    const body = { name: 'Expired Key Co', currency: 'usd' };
    const first = await create(acme, 'key-expired', body);
    expect(first.status).toBe(201);
    await app.query(`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE tenant_id = $1 AND key = 'key-expired'`, [acme.tenant_id]);
    const again = await create(acme, 'key-expired', body);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(again.body.id).not.toBe(first.body.id);
    expect(await countNamed('Expired Key Co')).toBe(2);
    const replay = await create(acme, 'key-expired', body);
    expect(replay.body.id).toBe(again.body.id);
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
