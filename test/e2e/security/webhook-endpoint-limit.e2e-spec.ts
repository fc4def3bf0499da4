import { expectProblem, TestApp, TestTenant } from '../../support/test-app';

/** At most 50 webhook endpoints per tenant (issue 12, finding 9), also under concurrent creation. */
describe('webhook endpoints per tenant', () => {
  let app: TestApp;
  let t: TestTenant;
  let other: TestTenant;

  beforeAll(async () => {
    app = await TestApp.start({ env: { WORKERS_ENABLED: 'false' } });
    [t, other] = await Promise.all([app.createTenant('Many hooks'), app.createTenant('Other')]);
  });
  afterAll(() => app.close());

  const create = (tenant: TestTenant, i: number) => app.post('/api/v1/webhooks', { url: `https://hooks.example.com/${i}`, events: ['*'] }, tenant.token);

  it('60 created at once: exactly 50 succeed, the rest are a 409 naming the limit', async () => {
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => create(t, i)));
    expect(answers.filter((r) => r.status === 201)).toHaveLength(50);
    const refused = answers.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(10);
    for (const res of refused) {
      expectProblem(res, 409, 'conflict');
      expect(res.body.detail).toContain('at most 50 webhook endpoints');
    }
    expect((await app.query('SELECT count(*)::int AS n FROM webhook_endpoints WHERE tenant_id = $1', [t.tenant_id]))[0].n).toBe(50);
  });

  it('counts per tenant: another tenant is unaffected', async () => {
    expect((await create(other, 1)).status).toBe(201);
  });

  it('deleting one makes room for another', async () => {
    const [{ id }] = await app.query('SELECT id FROM webhook_endpoints WHERE tenant_id = $1 LIMIT 1', [t.tenant_id]);
    expect((await app.delete(`/api/v1/webhooks/${id}`, t.token)).status).toBe(204);
    expect((await create(t, 100)).status).toBe(201);
    expectProblem(await create(t, 101), 409, 'conflict');
  });
});
