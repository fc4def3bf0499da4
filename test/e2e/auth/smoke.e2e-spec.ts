import { TestApp } from '../../support/test-app';

describe('smoke', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await TestApp.start();
  });
  afterAll(() => app.close());

  it('issues a token and reads status', async () => {
    const t = await app.createTenant();
    const res = await app.get('/api/v1/status', t.token);
    expect(res.status).toBe(200);
  });
});
