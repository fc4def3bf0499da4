import { ALL_SCOPES } from '../../../src/modules/auth';
import { isValidId } from '../../../src/shared/domain/ids';
import { ensureBuilt } from '../../support/build';
import { ProcessResult, runNode } from '../../support/child-process';
import { expectProblem, TestApp } from '../../support/test-app';

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

/**
 * The provisioning CLI as an operator runs it (the compiled dist/cli/main.js in a child
 * process) on the database a running server uses; the credentials it prints are then used
 * over HTTP against that server.
 */
describe('CLI (npm run cli)', () => {
  let app: TestApp;
  let cliPath: string;
  let cli: (...args: string[]) => Promise<ProcessResult>;

  beforeAll(async () => {
    cliPath = await ensureBuilt('cli/main.js');
    // A short client cache, so a revocation shows within the test rather than in 30 s.
    app = await TestApp.start({ env: { CLIENT_CACHE_TTL_MS: '200' } });
    cli = (...args) => runNode(cliPath, args, { DATABASE_URL: app.databaseUrl, LOG_LEVEL: 'silent' });
  }, 120_000);
  afterAll(() => app?.close());

  const tokenFor = (clientId: string, secret: string) =>
    app.request('POST', '/api/v1/auth/token', {
      rawBody: 'grant_type=client_credentials',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(clientId, secret) },
    });

  it('--help prints the usage and exits 0', async () => {
    const res = await cli('--help');
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('tenant create --name');
    expect(res.stdout).toContain('client revoke <client_id>');
  });

  it.each([[[]], [['tenant', 'create']], [['client', 'create', '--tenant', 'ten_x', '--rate-limit', 'many']], [['launch']]])(
    'exits 2 with one line on stderr for the usage error %p',
    async (args) => {
      const res = await cli(...args);
      expect(res.code).toBe(2);
      expect(res.stdout).toBe('');
      expect(res.stderr.trim().split('\n')).toHaveLength(1);
      expect(res.stderr).toMatch(/^error: .*--help/);
    },
  );

  it('migrate leaves an up-to-date database as it is and exits 0', async () => {
    const res = await cli('migrate');
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('up to date');
  });

  it('tenant create --json prints credentials that get a token over HTTP', async () => {
    const res = await cli('tenant', 'create', '--name', 'Acme Corp', '--json');
    expect(res.code).toBe(0);
    const created = JSON.parse(res.stdout);
    expect(Object.keys(created).sort()).toEqual(['client_id', 'client_secret', 'tenant_id']);
    expect(isValidId(created.tenant_id, 'ten')).toBe(true);
    expect(isValidId(created.client_id, 'cli')).toBe(true);
    const [tenant] = await app.query('SELECT name FROM tenants WHERE id = $1', [created.tenant_id]);
    expect(tenant.name).toBe('Acme Corp');

    const token = await tokenFor(created.client_id, created.client_secret);
    expect(token.status).toBe(200);
    expect(token.body.scope.split(' ')).toEqual([...ALL_SCOPES]);
    const status = await app.get('/api/v1/status', token.body.access_token);
    expect(status.status).toBe(200);
    expect(status.headers.get('ratelimit-limit')).toBe('1000');
  });

  it('tenant create without --json prints the credentials for people', async () => {
    const res = await cli('tenant', 'create', '--name', 'Beta');
    expect(res.code).toBe(0);
    const clientId = /client_id:\s+(cli_\S+)/.exec(res.stdout)?.[1];
    const secret = /client_secret:\s+(sk_\S+)/.exec(res.stdout)?.[1];
    expect((await tokenFor(clientId!, secret!)).status).toBe(200);
  });

  describe('client create / client revoke', () => {
    let tenantId: string;
    beforeAll(async () => {
      tenantId = JSON.parse((await cli('tenant', 'create', '--name', 'Gamma', '--json')).stdout).tenant_id;
    });

    it('creates a client with narrowed scopes and its own rate limit', async () => {
      const res = await cli('client', 'create', '--tenant', tenantId, '--scopes', 'invoices:read customers:read', '--rate-limit', '5', '--json');
      expect(res.code).toBe(0);
      const created = JSON.parse(res.stdout);
      expect(created).toEqual({ tenant_id: tenantId, client_id: expect.any(String), client_secret: expect.any(String), scopes: ['invoices:read', 'customers:read'] });
      const token = await tokenFor(created.client_id, created.client_secret);
      expect(token.body.scope).toBe('invoices:read customers:read');
      const status = await app.get('/api/v1/status', token.body.access_token);
      expect(status.body.rate_limit).toMatchObject({ limit: 5, remaining: 5 });
    });

    it.each([
      [['--tenant', 'ten_01m81fv6z1fqaba71g5rn2hmdn'], /Tenant ten_01m81fv6z1fqaba71g5rn2hmdn was not found/],
      [['--scopes', 'invoices:read invoices:admin'], /unknown scope/],
    ])('exits 1 with one line on stderr when the command fails (%p)', async (args, message) => {
      const res = await cli('client', 'create', ...(args[0] === '--tenant' ? args : ['--tenant', tenantId, ...args]), '--json');
      expect(res.code).toBe(1);
      expect(res.stdout).toBe('');
      expect(res.stderr.trim().split('\n')).toHaveLength(1);
      expect(res.stderr).toMatch(message);
    });

    it('client revoke makes the token endpoint and, within the client cache TTL, the API refuse the client', async () => {
      const created = JSON.parse((await cli('client', 'create', '--tenant', tenantId, '--rate-limit', '9', '--json')).stdout);
      const token = (await tokenFor(created.client_id, created.client_secret)).body.access_token;
      expect((await app.get('/api/v1/status', token)).body.rate_limit.limit).toBe(9);
      expect((await app.get('/api/v1/customers', token)).status).toBe(200);

      const res = await cli('client', 'revoke', created.client_id);
      expect(res.code).toBe(0);
      expect(res.stdout).toContain(created.client_id);

      const again = await tokenFor(created.client_id, created.client_secret);
      expect(again.status).toBe(401);
      expect(again.body.error).toBe('invalid_client');

      await new Promise((r) => setTimeout(r, 300)); // > CLIENT_CACHE_TTL_MS
      const refused = await app.get('/api/v1/customers', token);
      expectProblem(refused, 401, 'unauthorized');
      expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);
      // On a public route the revoked token no longer counts as that client.
      expect((await app.get('/api/v1/status', token)).body.rate_limit.limit).toBe(1000);
    });

    it('client revoke of an unknown client exits 1', async () => {
      const res = await cli('client', 'revoke', 'cli_01m81fv6z5fqaba71xpryakrrn', '--json');
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(/^error: Client cli_01m81fv6z5fqaba71xpryakrrn was not found/);
    });
  });
});
