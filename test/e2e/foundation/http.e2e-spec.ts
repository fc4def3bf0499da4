import { expectProblem, TestApp, TestTenant } from '../../support/test-app';

/** The HTTP pipeline every endpoint shares: errors, headers, health, metrics and the API description. */
describe('HTTP foundation', () => {
  let app: TestApp;
  let acme: TestTenant;

  beforeAll(async () => {
    app = await TestApp.start();
    acme = await app.createTenant('Acme');
  });
  afterAll(() => app.close());

  describe('problem+json errors', () => {
    it('an invalid body is a 400 validation_failed listing each field', async () => {
      const res = await app.post('/api/v1/customers', { name: 42, currency: 'usd', credit_limit: 'lots' }, acme.token);
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors).toEqual(
        expect.arrayContaining([
          { field: 'name', code: expect.any(String), message: expect.any(String) },
          { field: 'credit_limit', code: expect.any(String), message: expect.any(String) },
        ]),
      );
    });

    it('an unknown body field is a 400, not silently dropped', async () => {
      const res = await app.post('/api/v1/customers', { name: 'Acme', currency: 'usd', colour: 'red' }, acme.token);
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors).toEqual([{ field: 'colour', code: 'unknown_field', message: expect.stringContaining('colour') }]);
    });

    it('an unknown nested field names its path', async () => {
      const res = await app.post('/api/v1/customers', { name: 'Acme', currency: 'usd', billing_address: { city: 'X', planet: 'Mars' } }, acme.token);
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors).toEqual([expect.objectContaining({ field: 'billing_address.planet', code: 'unknown_field' })]);
    });

    it('an unknown query parameter is a 400', async () => {
      expectProblem(await app.get('/api/v1/customers?colour=red', acme.token), 400, 'validation_failed');
    });

    it('malformed JSON is a 400 malformed_json', async () => {
      const res = await app.request('POST', '/api/v1/auth/token', { rawBody: '{"grant_type":', headers: { 'content-type': 'application/json' } });
      expectProblem(res, 400, 'malformed_json');
    });

    it('an empty body declared as JSON is a 400 malformed_json', async () => {
      const res = await app.request('POST', '/api/v1/auth/token', { rawBody: '', headers: { 'content-type': 'application/json' } });
      expectProblem(res, 400, 'malformed_json');
    });

    it('an unknown route is a 404 not_found that does not echo the path', async () => {
      const res = await app.get('/api/v1/no-such-thing', acme.token);
      expectProblem(res, 404, 'not_found');
      expect(res.text).not.toContain('no-such-thing');
      expectProblem(await app.request('DELETE', '/api/v1/status'), 404, 'not_found');
    });

    it('a body over 1 MB is a 413 payload_too_large', async () => {
      const res = await app.request('POST', '/api/v1/auth/token', {
        rawBody: JSON.stringify({ grant_type: 'client_credentials', padding: 'x'.repeat(1_100_000) }),
        headers: { 'content-type': 'application/json' },
      });
      expectProblem(res, 413, 'payload_too_large');
    });

    it('a body just under 1 MB is read', async () => {
      const res = await app.request('POST', '/api/v1/auth/token', {
        rawBody: JSON.stringify({ grant_type: 'password', padding: 'x'.repeat(1_000_000) }),
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('unsupported_grant_type');
    });

    it.each(['text/plain', 'application/xml', 'multipart/form-data; boundary=x'])('a %s body is a 415 unsupported_media_type', async (type) => {
      const res = await app.request('POST', '/api/v1/auth/token', { rawBody: 'grant_type=client_credentials', headers: { 'content-type': type } });
      expectProblem(res, 415, 'unsupported_media_type');
    });

    it('a form-encoded body is a 415 everywhere but the token endpoint', async () => {
      const res = await app.request('POST', '/api/v1/customers', {
        token: acme.token,
        rawBody: 'name=Acme',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expectProblem(res, 415, 'unsupported_media_type');
    });
  });

  it('a 5xx is a generic internal_error: no SQL, driver message or stack', async () => {
    // A broken database (a table gone) is the realistic way to make a real endpoint fail.
    await app.query('ALTER TABLE customers RENAME TO customers_gone');
    try {
      const res = await app.get('/api/v1/customers', acme.token);
      expectProblem(res, 500, 'internal_error');
      expect(res.body.detail).toBe('An unexpected error occurred.');
      expect(res.text).not.toMatch(/customers|relation|SELECT|at \w+ \(|\.ts:\d+/);
    } finally {
      await app.query('ALTER TABLE customers_gone RENAME TO customers');
    }
  });

  describe('request ids', () => {
    it('generates one per request and returns it in the header and in problems', async () => {
      const a = await app.get('/api/v1/status');
      const b = await app.get('/api/v1/nope');
      expect(a.headers.get('x-request-id')).toMatch(/^req_[0-9a-z]{26}$/);
      expect(b.headers.get('x-request-id')).toMatch(/^req_[0-9a-z]{26}$/);
      expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
      expect(b.body.request_id).toBe(b.headers.get('x-request-id'));
    });

    it("echoes the client's id, also on errors", async () => {
      expect((await app.get('/api/v1/status', undefined, { 'x-request-id': 'client-trace.42:abc' })).headers.get('x-request-id')).toBe('client-trace.42:abc');
      const res = await app.get('/api/v1/nope', undefined, { 'x-request-id': 'trace-404' });
      expect(res.headers.get('x-request-id')).toBe('trace-404');
      expect(res.body.request_id).toBe('trace-404');
    });

    it('replaces an unsafe or oversized client id instead of echoing it', async () => {
      for (const bad of ['has spaces and <script>', 'x'.repeat(129)]) {
        const res = await app.get('/api/v1/status', undefined, { 'x-request-id': bad });
        expect(res.headers.get('x-request-id')).toMatch(/^req_/);
      }
    });
  });

  it('sends security headers', async () => {
    for (const res of [await app.get('/api/v1/status'), await app.get('/api/v1/nope')]) {
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('strict-transport-security')).toMatch(/max-age=\d+/);
      expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
      expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('x-powered-by')).toBeNull();
    }
  });

  describe('status', () => {
    it('is public and reports the default rate-limit policy without a token, with no rate-limit headers', async () => {
      const res = await app.get('/api/v1/status');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        status: 'ok',
        version: expect.stringMatching(/^\d+\.\d+\.\d+/),
        time: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/),
        rate_limit: { limit: 1000, remaining: 1000, reset: 60, window_seconds: 60 },
      });
      expect(Math.abs(Date.parse(res.body.time) - Date.now())).toBeLessThan(60_000);
      expect(res.headers.get('ratelimit-policy')).toBeNull();
    });

    it("with a token reports that client's state and sends the rate-limit headers", async () => {
      const limited = await app.createClient(acme.tenant_id, undefined, 7);
      const res = await app.get('/api/v1/status', limited.token);
      expect(res.body.rate_limit).toEqual({ limit: 7, remaining: 7, reset: expect.any(Number), window_seconds: 60 });
      expect(res.headers.get('ratelimit-policy')).toBe('"default";q=7;w=60');
      expect(res.headers.get('ratelimit')).toMatch(/^"default";r=7;t=\d+$/);
      expect(res.headers.get('ratelimit-limit')).toBe('7');
      expect(res.headers.get('ratelimit-remaining')).toBe('7');
      expect(Number(res.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    });

    it('with an invalid token still answers, as for an anonymous caller', async () => {
      const res = await app.get('/api/v1/status', 'not-a-jwt');
      expect(res.status).toBe(200);
      expect(res.body.rate_limit.limit).toBe(1000);
    });
  });

  describe('operations endpoints', () => {
    it('/health is up without a database check', async () => {
      const res = await app.get('/health');
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('ok');
    });

    it('/health/ready checks the database', async () => {
      const res = await app.get('/health/ready');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'ok', info: { database: { status: 'up' } } });
    });

    it('/metrics serves Prometheus text with request durations by route template', async () => {
      await app.get('/api/v1/status');
      const res = await app.get('/metrics');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(res.text).toContain('# TYPE http_request_duration_seconds histogram');
      expect(res.text).toMatch(/http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/status",status="200"\} [1-9]/);
      expect(res.text).toContain('process_cpu_seconds_total');
    });

    it('/docs serves the Swagger UI', async () => {
      const res = await app.get('/docs');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.text).toContain('swagger-ui');
    });
  });
});
