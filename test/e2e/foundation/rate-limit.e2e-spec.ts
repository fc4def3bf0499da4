import { ApiResponse, expectProblem, TestApp } from '../../support/test-app';

const PROTECTED = '/api/v1/customers';

function expectRateLimitHeaders(res: ApiResponse, limit: number, remaining: number): void {
  expect(res.headers.get('ratelimit-policy')).toBe(`"default";q=${limit};w=60`);
  expect(res.headers.get('ratelimit')).toMatch(new RegExp(`^"default";r=${remaining};t=\\d+$`));
  expect(res.headers.get('ratelimit-limit')).toBe(String(limit));
  expect(res.headers.get('ratelimit-remaining')).toBe(String(remaining));
  const reset = Number(res.headers.get('ratelimit-reset'));
  expect(reset).toBeGreaterThan(0);
  expect(reset).toBeLessThanOrEqual(60);
}

describe('per-client rate limits', () => {
  const env = { RATE_LIMIT_REQUESTS: '3', RATE_LIMIT_WINDOW_SECONDS: '60' };
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    a = await TestApp.start({ env });
    // A second instance of the service on the same database.
    b = await TestApp.start({ env, databaseUrl: a.databaseUrl });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('counts each authenticated request, then answers 429 rate_limited with Retry-After', async () => {
    const t = await a.createTenant('Acme');
    for (let remaining = 2; remaining >= 0; remaining--) {
      const res = await a.get(PROTECTED, t.token);
      expect(res.status).toBe(200);
      expectRateLimitHeaders(res, 3, remaining);
    }
    const refused = await a.get(PROTECTED, t.token);
    expectProblem(refused, 429, 'rate_limited');
    expectRateLimitHeaders(refused, 3, 0);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);

    // The status endpoint is public: it still answers, reports the exhausted state and counts nothing.
    const status = await a.get('/api/v1/status', t.token);
    expect(status.status).toBe(200);
    expect(status.body.rate_limit).toEqual({ limit: 3, remaining: 0, reset: expect.any(Number), window_seconds: 60 });
    expectRateLimitHeaders(status, 3, 0);
  });

  it('limits each client on its own, another client of the same tenant is unaffected', async () => {
    const t = await a.createTenant('Busy');
    const other = await a.createClient(t.tenant_id);
    for (let i = 0; i < 3; i++) await a.get(PROTECTED, t.token);
    expect((await a.get(PROTECTED, t.token)).status).toBe(429);
    const res = await a.get(PROTECTED, other.token);
    expect(res.status).toBe(200);
    expectRateLimitHeaders(res, 3, 2);
  });

  it('honours a per-client limit', async () => {
    const t = await a.createTenant('Big');
    const big = await a.createClient(t.tenant_id, undefined, 5);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await a.get(PROTECTED, big.token)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    expect((await a.get('/api/v1/status', big.token)).body.rate_limit).toMatchObject({ limit: 5, remaining: 0 });
  });

  it('shares the counters between instances on one database', async () => {
    const t = await a.createTenant('Shared');
    expect((await a.get(PROTECTED, t.token)).status).toBe(200);
    expectRateLimitHeaders(await b.get(PROTECTED, t.token), 3, 1);
    expectRateLimitHeaders(await a.get(PROTECTED, t.token), 3, 0);
    expectProblem(await b.get(PROTECTED, t.token), 429, 'rate_limited');
    expectProblem(await a.get(PROTECTED, t.token), 429, 'rate_limited');
    expect((await b.get('/api/v1/status', t.token)).body.rate_limit.remaining).toBe(0);
  });

  it('lets no more than the limit through when requests arrive concurrently on both instances', async () => {
    const t = await a.createTenant('Burst');
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).get(PROTECTED, t.token)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    expect(statuses.filter((s) => s === 429)).toHaveLength(7);
  });
});
