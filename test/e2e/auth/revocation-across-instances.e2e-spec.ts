import { RevokeClientCommand } from '../../../src/modules/auth';
import { ClientStatusCache } from '../../../src/modules/auth/infrastructure/client-status.cache';
import { TransactionalCommandBus } from '../../../src/shared/infrastructure/database/transactional-command-bus';
import { expectProblem, TestApp, TestTenant } from '../../support/test-app';
import { LISTENER_APPLICATION_NAME } from '../../../src/shared/infrastructure/database/pg-listener';

// Contract §2 / issue #12 finding 16: a revocation takes effect on every instance within a
// second. The cache TTL is ten minutes here, so only the change notification can make the
// second instance refuse the token in time.
const ENV = { CLIENT_CACHE_TTL_MS: '600000' };

/** Resolves with the time `clientId` was dropped from `cache` (by a notification). */
function invalidation(cache: ClientStatusCache, clientId: string, timeoutMs = 10_000): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`instance 2 did not drop ${clientId} within ${timeoutMs} ms`));
    }, timeoutMs);
    const stop = cache.onInvalidated((id) => {
      if (id !== clientId && id !== undefined) return;
      clearTimeout(timer);
      stop();
      resolve(Date.now());
    });
  });
}

async function whenListening(cache: ClientStatusCache): Promise<void> {
  cache.listen();
  const end = Date.now() + 10_000;
  while (!cache.listening) {
    if (Date.now() > end) throw new Error('the clients listener never connected');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('revocation across instances (LISTEN/NOTIFY)', () => {
  let one: TestApp;
  let two: TestApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    one = await TestApp.start({ env: ENV });
    two = await TestApp.start({ env: ENV, databaseUrl: one.databaseUrl });
    tenant = await one.createTenant();
  });
  afterAll(async () => {
    await two.close();
    await one.close();
  });

  it('a client revoked through instance 1 is refused by instance 2 as soon as its cache is told, long before the TTL', async () => {
    const cache = two.app.get(ClientStatusCache);
    await whenListening(cache);
    // Instance 2 has the client cached as valid.
    expect((await two.get('/api/v1/customers', tenant.token)).status).toBe(200);
    expect((await two.get('/api/v1/customers', tenant.token)).status).toBe(200);

    const dropped = invalidation(cache, tenant.client_id);
    const revokedAt = Date.now();
    await one.app.get(TransactionalCommandBus).execute(new RevokeClientCommand(tenant.client_id));
    const at = await dropped;
    expect(at - revokedAt).toBeLessThan(10_000);
    if (process.env.MEASURE) process.stdout.write(`revocation reached instance 2 after ${at - revokedAt} ms\n`);

    const refused = await two.get('/api/v1/customers', tenant.token);
    expectProblem(refused, 401, 'unauthorized');
    expect((await one.get('/api/v1/customers', tenant.token)).status).toBe(401);
  });

  it('a client changed behind the service’s back (an operator’s SQL) is dropped too', async () => {
    const other = await one.createClient(tenant.tenant_id);
    const cache = two.app.get(ClientStatusCache);
    expect((await two.get('/api/v1/customers', other.token)).status).toBe(200);
    const dropped = invalidation(cache, other.client_id);
    await one.query(`UPDATE api_clients SET revoked_at = now() WHERE id = $1`, [other.client_id]);
    await dropped;
    expectProblem(await two.get('/api/v1/customers', other.token), 401, 'unauthorized');
  });

  it('trusts no cached entry while change notifications are not arriving', async () => {
    const third = await one.createClient(tenant.tenant_id);
    const cache = two.app.get(ClientStatusCache);
    expect((await two.get('/api/v1/customers', third.token)).status).toBe(200);
    // Cut instance 2's LISTEN connection; until it is back, every check reads the row (and its
    // reconnect drops every entry, since notifications may have been missed meanwhile).
    const cut = new Promise<void>((resolve) => {
      const stop = cache.onInvalidated((id) => id === undefined && (stop(), resolve()));
      const poll = setInterval(() => !cache.listening && (clearInterval(poll), stop(), resolve()), 5);
    });
    const [{ n }] = await one.query(
      `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = '${LISTENER_APPLICATION_NAME}' AND datname = current_database()`,
    );
    expect(n).toBeGreaterThan(0);
    await cut;
    await one.query(`UPDATE api_clients SET revoked_at = now() WHERE id = $1`, [third.client_id]);
    expectProblem(await two.get('/api/v1/customers', third.token), 401, 'unauthorized');
    await whenListening(cache);
  });
});
