import { randomUUID } from 'node:crypto';
import { RevokeClientCommand } from '../../../src/modules/auth';
import { TransactionalCommandBus } from '../../../src/shared/infrastructure/database/transactional-command-bus';
import { decodeJwt, forgeJwt } from '../../support/jwt';
import { ApiResponse, expectProblem, TestApp, TestTenant } from '../../support/test-app';

/** A route that needs a token and the customers:read scope (built by the customers module). */
const PROTECTED = '/api/v1/customers';

function expectInvalidToken(res: ApiResponse): void {
  expectProblem(res, 401, 'unauthorized');
  expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="receivables", error="invalid_token"$/);
}

describe('bearer tokens on protected routes', () => {
  let app: TestApp;
  let acme: TestTenant;
  let secret: string;
  const now = () => Math.floor(Date.now() / 1000);
  const claims = (over: Record<string, unknown> = {}) => ({
    sub: acme.client_id,
    tid: acme.tenant_id,
    scope: 'customers:read',
    iat: now(),
    exp: now() + 600,
    jti: randomUUID(),
    ...over,
  });

  beforeAll(async () => {
    app = await TestApp.start({ env: { CLIENT_CACHE_TTL_MS: '100' } });
    acme = await app.createTenant('Acme');
    [{ value: secret }] = await app.query(`SELECT value FROM system_settings WHERE key = 'jwt_secret'`);
  });
  afterAll(() => app.close());

  it('accepts a token the endpoint issued, and a token forged here the same way (the test signs like the server)', async () => {
    expect((await app.get(PROTECTED, acme.token)).status).toBe(200);
    expect((await app.get(PROTECTED, forgeJwt({ alg: 'HS256', typ: 'JWT' }, claims(), secret))).status).toBe(200);
  });

  it('without a token: 401 with a bare Bearer challenge (no error attribute)', async () => {
    for (const headers of <Record<string, string>[]>[{}, { authorization: 'Bearer' }, { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }]) {
      const res = await app.get(PROTECTED, undefined, headers);
      expectProblem(res, 401, 'unauthorized');
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="receivables"');
    }
  });

  it('refuses a malformed token', async () => {
    expectInvalidToken(await app.get(PROTECTED, 'not.a.jwt'));
    expectInvalidToken(await app.get(PROTECTED, 'garbage'));
  });

  it('refuses an expired token', async () => {
    expectInvalidToken(await app.get(PROTECTED, forgeJwt({ alg: 'HS256', typ: 'JWT' }, claims({ iat: now() - 7200, exp: now() - 3600 }), secret)));
  });

  it('refuses a token whose payload was altered after signing', async () => {
    const real = acme.token.split('.');
    const payload = decodeJwt(acme.token).payload;
    const widened = Buffer.from(JSON.stringify({ ...payload, tid: 'ten_01m81fv6z1fqaba71g5rn2hmdn' })).toString('base64url');
    expectInvalidToken(await app.get(PROTECTED, `${real[0]}.${widened}.${real[2]}`));
  });

  it('refuses alg: none, with or without a signature part', async () => {
    const unsigned = forgeJwt({ alg: 'none', typ: 'JWT' }, claims());
    expectInvalidToken(await app.get(PROTECTED, unsigned));
    expectInvalidToken(await app.get(PROTECTED, `${unsigned}${acme.token.split('.')[2]}`));
  });

  it('refuses a token signed with another secret or another algorithm', async () => {
    expectInvalidToken(await app.get(PROTECTED, forgeJwt({ alg: 'HS256', typ: 'JWT' }, claims(), 'not-the-server-secret')));
    expectInvalidToken(await app.get(PROTECTED, forgeJwt({ alg: 'HS512', typ: 'JWT' }, claims(), secret)));
  });

  it('refuses a correctly signed token for an unknown client or for another tenant than the client', async () => {
    expectInvalidToken(await app.get(PROTECTED, forgeJwt({ alg: 'HS256' }, claims({ sub: 'cli_01m81fv6z5fqaba71xpryakrrn' }), secret)));
    const other = await app.createTenant('Other');
    expectInvalidToken(await app.get(PROTECTED, forgeJwt({ alg: 'HS256' }, claims({ tid: other.tenant_id }), secret)));
  });

  it("refuses a revoked client's token once the client cache expires", async () => {
    const client = await app.createClient(acme.tenant_id);
    expect((await app.get(PROTECTED, client.token)).status).toBe(200);
    await app.app.get(TransactionalCommandBus).execute(new RevokeClientCommand(client.client_id));
    await new Promise((r) => setTimeout(r, 150));
    expectInvalidToken(await app.get(PROTECTED, client.token));
  });

  it('a token without the route\'s scope: 403 forbidden with error="insufficient_scope"', async () => {
    const reader = await app.createClient(acme.tenant_id, 'invoices:read');
    const res = await app.get(PROTECTED, reader.token);
    expectProblem(res, 403, 'forbidden');
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="receivables", error="insufficient_scope", scope="customers:read"$/);
    // A token narrowed at the token endpoint is held to its narrowed scopes too.
    const narrowed = await app.token(acme.client_id, acme.client_secret, 'invoices:read');
    expectProblem(await app.get(PROTECTED, narrowed), 403, 'forbidden');
  });
});
