import { ApiResponse, expectProblem, TestApp } from '../../support/test-app';

const TOKEN = '/api/v1/auth/token';

/**
 * The token endpoint's limits (docs/security.md). Addresses are told apart by X-Forwarded-For
 * (TRUST_PROXY=true), so one test process can be an attacker and the real client at once.
 */
describe('token endpoint brute-force limits', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await TestApp.start({
      env: { TRUST_PROXY: 'true', TOKEN_FAILURE_LIMIT: '3', TOKEN_FAILURE_WINDOW_SECONDS: '600', TOKEN_ISSUE_LIMIT: '3' },
    });
  });
  afterAll(() => app.close());

  let n = 0;
  /** A fresh address per test, so the tests' counters never meet. */
  const address = () => `198.51.100.${++n}`;
  const attempt = (from: string, clientId: string, secret: string, extra: Record<string, string> = {}) =>
    app.post(TOKEN, { grant_type: 'client_credentials', client_id: clientId, client_secret: secret, ...extra }, undefined, { 'x-forwarded-for': from });

  function expectLimited(res: ApiResponse): number {
    expectProblem(res, 429, 'rate_limited');
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    return retryAfter;
  }

  it('locks out the (client, address) pair after the limit, even for the right secret, with Retry-After', async () => {
    const t = await app.createTenant('Target');
    const attacker = address();
    for (let i = 0; i < 3; i++) expect((await attempt(attacker, t.client_id, 'guess')).status).toBe(401);
    const blocked = await attempt(attacker, t.client_id, t.client_secret);
    expect(expectLimited(blocked)).toBeLessThanOrEqual(600);
    expect(blocked.headers.get('cache-control')).toBe('no-store');
  });

  it('never locks out the real client from another address', async () => {
    const t = await app.createTenant('Victim');
    const attacker = address();
    for (let i = 0; i < 3; i++) await attempt(attacker, t.client_id, 'guess');
    expectLimited(await attempt(attacker, t.client_id, 'guess'));
    const real = await attempt(address(), t.client_id, t.client_secret);
    expect(real.status).toBe(200);
    expect(real.body.access_token).toEqual(expect.any(String));
  });

  it('counts failures per address over all client ids (password spraying)', async () => {
    const t = await app.createTenant('Sprayed');
    const attacker = address();
    // Nine unknown client ids, one guess each: no pair reaches its limit, the address (3 x 3) does.
    for (let i = 0; i < 9; i++) expect((await attempt(attacker, `cli_unknown${i}`, 'guess')).status).toBe(401);
    expectLimited(await attempt(attacker, t.client_id, t.client_secret));
    expect((await attempt(address(), t.client_id, t.client_secret)).status).toBe(200);
  });

  it('lets at most the limit of concurrent wrong secrets reach the secret check', async () => {
    const t = await app.createTenant('Raced');
    const attacker = address();
    const answers = await Promise.all(Array.from({ length: 40 }, () => attempt(attacker, t.client_id, 'guess')));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(3);
    expect(statuses.filter((s) => s === 429)).toHaveLength(37);
  });

  it('backs off: an attacker that keeps trying is locked out for the day, not the window', async () => {
    const t = await app.createTenant('Persistent');
    const attacker = address();
    const retries: number[] = [];
    // The day's budget of a pair is four windows' worth (12 here); attempts while locked count too.
    for (let i = 0; i < 13; i++) {
      const res = await attempt(attacker, t.client_id, 'guess');
      if (res.status === 429) retries.push(Number(res.headers.get('retry-after')));
    }
    expect(retries[0]).toBeLessThanOrEqual(600);
    expect(retries[retries.length - 1]).toBeGreaterThan(600);
    expect(retries[retries.length - 1]).toBeLessThanOrEqual(86_400);
  });

  it('does not count a right secret with a refused scope as a failure', async () => {
    const t = await app.createTenant('Scoped', 'invoices:read');
    const from = address();
    for (let i = 0; i < 4; i++) expect((await attempt(from, t.client_id, t.client_secret, { scope: 'payments:write' })).body.error).toBe('invalid_scope');
    expect((await attempt(from, t.client_id, t.client_secret)).status).toBe(200);
  });

  it('limits the tokens one client is issued a minute (TOKEN_ISSUE_LIMIT)', async () => {
    const t = await app.createTenant('Greedy'); // createTenant fetched one token already
    const from = address();
    expect((await attempt(from, t.client_id, t.client_secret)).status).toBe(200);
    expect((await attempt(address(), t.client_id, t.client_secret)).status).toBe(200);
    const refused = await attempt(address(), t.client_id, t.client_secret);
    expect(expectLimited(refused)).toBeLessThanOrEqual(60);
    expect(refused.body.detail).toContain('tokens a minute');
  });

  describe('a client_id that was never issued is a 400 or 401, never a 500', () => {
    it('longer than any id (300 characters): 401 invalid_client', async () => {
      const res = await attempt(address(), 'x'.repeat(300), 'guess');
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('invalid_client');
    });

    it('holding U+0000 in a form: 400 invalid_request', async () => {
      const res = await app.request('POST', TOKEN, {
        rawBody: 'grant_type=client_credentials&client_id=cli%00x&client_secret=s',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': address() },
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_request');
    });

    it('holding U+0000 in JSON: 400', async () => {
      const res = await attempt(address(), 'cli_\u0000', 'guess');
      expectProblem(res, 400, 'validation_failed');
    });

    it('holding U+0000 in HTTP Basic: 401 invalid_client with WWW-Authenticate', async () => {
      const res = await app.post(TOKEN, { grant_type: 'client_credentials' }, undefined, {
        authorization: `Basic ${Buffer.from('cli%00x:secret').toString('base64')}`,
        'x-forwarded-for': address(),
      });
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('invalid_client');
      expect(res.headers.get('www-authenticate')).toContain('Basic');
    });
  });
});
