import { ALL_SCOPES, RevokeClientCommand } from '../../../src/modules/auth';
import { TransactionalCommandBus } from '../../../src/shared/infrastructure/database/transactional-command-bus';
import { decodeJwt } from '../../support/jwt';
import { ApiResponse, TestApp, TestTenant } from '../../support/test-app';

const TOKEN = '/api/v1/auth/token';
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

/** RFC 6749 §5.2: a plain JSON error object (not problem+json), never cached. */
function expectOAuthError(res: ApiResponse, status: number, error: string): void {
  expect({ status: res.status, body: res.body }).toEqual({ status, body: { error, error_description: expect.any(String) } });
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.headers.get('cache-control')).toBe('no-store');
}

describe('POST /api/v1/auth/token', () => {
  let app: TestApp;
  let acme: TestTenant;

  beforeAll(async () => {
    // Every failed attempt below counts against 127.0.0.1; the brute-force limit has its own file.
    app = await TestApp.start({ env: { TOKEN_FAILURE_LIMIT: '1000' } });
    acme = await app.createTenant('Acme');
  });
  afterAll(() => app.close());

  const form = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
    app.request('POST', TOKEN, {
      rawBody: new URLSearchParams(fields).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    });

  describe('issues a token', () => {
    it('for JSON credentials, with every scope of the client, no refresh token, and no caching', async () => {
      const res = await app.post(TOKEN, { grant_type: 'client_credentials', client_id: acme.client_id, client_secret: acme.client_secret });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600, scope: ALL_SCOPES.join(' ') });
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('pragma')).toBe('no-cache');
      const { header, payload } = decodeJwt(res.body.access_token);
      expect(header.alg).toBe('HS256');
      expect(payload).toMatchObject({ sub: acme.client_id, tid: acme.tenant_id, scope: ALL_SCOPES.join(' ') });
      expect(payload.exp - payload.iat).toBe(3600);
      expect(Math.abs(payload.iat - Date.now() / 1000)).toBeLessThan(60);
    });

    it('for form-encoded credentials (RFC 6749)', async () => {
      const res = await form({ grant_type: 'client_credentials', client_id: acme.client_id, client_secret: acme.client_secret });
      expect(res.status).toBe(200);
      expect(res.body.token_type).toBe('Bearer');
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('pragma')).toBe('no-cache');
    });

    it('for HTTP Basic credentials, with a form or a JSON body', async () => {
      const viaForm = await form({ grant_type: 'client_credentials' }, { authorization: basic(acme.client_id, acme.client_secret) });
      expect(viaForm.status).toBe(200);
      const viaJson = await app.post(TOKEN, { grant_type: 'client_credentials' }, undefined, { authorization: basic(acme.client_id, acme.client_secret) });
      expect(viaJson.status).toBe(200);
      expect(viaJson.body.expires_in).toBe(3600);
    });

    it('each time a new one (distinct jti)', async () => {
      const [a, b] = await Promise.all([1, 2].map(() => app.token(acme.client_id, acme.client_secret)));
      expect(decodeJwt(a).payload.jti).not.toBe(decodeJwt(b).payload.jti);
    });

    it('narrowed to the requested scopes', async () => {
      const res = await form({ grant_type: 'client_credentials', client_id: acme.client_id, client_secret: acme.client_secret, scope: 'invoices:read  payments:write' });
      expect(res.status).toBe(200);
      expect(res.body.scope).toBe('invoices:read payments:write');
      expect(decodeJwt(res.body.access_token).payload.scope).toBe('invoices:read payments:write');
    });

    it('limited to the scopes the client was created with', async () => {
      const reader = await app.createClient(acme.tenant_id, 'invoices:read customers:read');
      const res = await app.post(TOKEN, { grant_type: 'client_credentials', client_id: reader.client_id, client_secret: reader.client_secret });
      expect(res.body.scope).toBe('invoices:read customers:read');
    });
  });

  describe('invalid_request (400)', () => {
    it('without grant_type', async () => {
      expectOAuthError(await form({ client_id: acme.client_id, client_secret: acme.client_secret }), 400, 'invalid_request');
      expectOAuthError(await app.post(TOKEN, { grant_type: '', client_id: acme.client_id, client_secret: acme.client_secret }), 400, 'invalid_request');
    });

    it.each([
      ['an array grant_type', { grant_type: ['client_credentials'] }],
      ['a numeric client_secret', { grant_type: 'client_credentials', client_secret: 12345 }],
      ['an object client_id', { grant_type: 'client_credentials', client_id: { $ne: null } }],
      ['a null scope', { grant_type: 'client_credentials', scope: null }],
    ])('with %s', async (_name, body) => {
      expectOAuthError(await app.post(TOKEN, { client_id: acme.client_id, client_secret: acme.client_secret, ...body }), 400, 'invalid_request');
    });

    it('with repeated form parameters (they arrive as arrays)', async () => {
      const res = await app.request('POST', TOKEN, {
        rawBody: `grant_type=client_credentials&client_id=${acme.client_id}&client_secret=a&client_secret=b`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expectOAuthError(res, 400, 'invalid_request');
    });

    it('with HTTP Basic and a client_secret in the body: two authentication methods', async () => {
      const res = await app.post(
        TOKEN,
        { grant_type: 'client_credentials', client_secret: acme.client_secret },
        undefined,
        { authorization: basic(acme.client_id, acme.client_secret) },
      );
      expectOAuthError(res, 400, 'invalid_request');
      expect(res.headers.get('www-authenticate')).toBeNull();
    });

    it('with HTTP Basic and another client_id in the body', async () => {
      const res = await form({ grant_type: 'client_credentials', client_id: 'cli_someone_else' }, { authorization: basic(acme.client_id, acme.client_secret) });
      expectOAuthError(res, 400, 'invalid_request');
    });
  });

  it.each(['password', 'authorization_code', 'refresh_token', 'CLIENT_CREDENTIALS'])('unsupported_grant_type for %s', async (grant) => {
    expectOAuthError(await form({ grant_type: grant, client_id: acme.client_id, client_secret: acme.client_secret }), 400, 'unsupported_grant_type');
  });

  describe('invalid_scope (400)', () => {
    it('for a scope that does not exist', async () => {
      const res = await form({ grant_type: 'client_credentials', client_id: acme.client_id, client_secret: acme.client_secret, scope: 'invoices:read invoices:admin' });
      expectOAuthError(res, 400, 'invalid_scope');
    });

    it('for a scope the client was not given', async () => {
      const reader = await app.createClient(acme.tenant_id, 'invoices:read');
      const res = await form({ grant_type: 'client_credentials', client_id: reader.client_id, client_secret: reader.client_secret, scope: 'payments:write' });
      expectOAuthError(res, 400, 'invalid_scope');
    });
  });

  describe('invalid_client (401)', () => {
    it('for a wrong secret in the body, without WWW-Authenticate', async () => {
      const res = await form({ grant_type: 'client_credentials', client_id: acme.client_id, client_secret: `${acme.client_secret}x` });
      expectOAuthError(res, 401, 'invalid_client');
      expect(res.headers.get('www-authenticate')).toBeNull();
    });

    it('for an unknown client, answered like a wrong secret', async () => {
      const res = await app.post(TOKEN, { grant_type: 'client_credentials', client_id: 'cli_01m81fv6z5fqaba71xpryakrrn', client_secret: 'sk_x' });
      expectOAuthError(res, 401, 'invalid_client');
      expect(res.body.error_description).toBe(
        (await app.post(TOKEN, { grant_type: 'client_credentials', client_id: acme.client_id, client_secret: 'sk_x' })).body.error_description,
      );
    });

    it('without any credentials', async () => {
      const res = await form({ grant_type: 'client_credentials' });
      expectOAuthError(res, 401, 'invalid_client');
      expect(res.headers.get('www-authenticate')).toBeNull();
    });

    it('for a wrong secret over HTTP Basic, with WWW-Authenticate: Basic', async () => {
      const res = await form({ grant_type: 'client_credentials' }, { authorization: basic(acme.client_id, 'wrong') });
      expectOAuthError(res, 401, 'invalid_client');
      expect(res.headers.get('www-authenticate')).toMatch(/^Basic\b/);
    });

    it('for malformed Basic credentials, with WWW-Authenticate: Basic', async () => {
      const res = await form({ grant_type: 'client_credentials' }, { authorization: `Basic ${Buffer.from('no-colon').toString('base64')}` });
      expectOAuthError(res, 401, 'invalid_client');
      expect(res.headers.get('www-authenticate')).toMatch(/^Basic\b/);
    });

    it('for a revoked client', async () => {
      const victim = await app.createClient(acme.tenant_id);
      await app.app.get(TransactionalCommandBus).execute(new RevokeClientCommand(victim.client_id));
      expectOAuthError(await app.post(TOKEN, { grant_type: 'client_credentials', client_id: victim.client_id, client_secret: victim.client_secret }), 401, 'invalid_client');
    });
  });

  it('stores the secret only as an Argon2id hash', async () => {
    const [row] = await app.query('SELECT secret_hash FROM api_clients WHERE id = $1', [acme.client_id]);
    expect(row.secret_hash).toMatch(/^\$argon2id\$/);
    expect(row.secret_hash).not.toContain(acme.client_secret);
  });
});
