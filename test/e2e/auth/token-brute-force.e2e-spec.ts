import { CreateClientCommand, CreatedClient } from '../../../src/modules/auth';
import { TransactionalCommandBus } from '../../../src/shared/infrastructure/database/transactional-command-bus';
import { TestApp } from '../../support/test-app';

const TOKEN = '/api/v1/auth/token';

describe('token endpoint brute-force limit', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await TestApp.start({ env: { TOKEN_FAILURE_LIMIT: '3', TOKEN_FAILURE_WINDOW_SECONDS: '600' } });
  });
  afterAll(() => app.close());

  it('answers 429 rate_limited with Retry-After after repeated failures, even for the right secret', async () => {
    const t = await app.createTenant('Target');
    const attempt = (secret: string) => app.post(TOKEN, { grant_type: 'client_credentials', client_id: t.client_id, client_secret: secret });
    for (let i = 0; i < 3; i++) expect((await attempt('guess')).status).toBe(401);
    const blocked = await attempt(t.client_secret);
    expect(blocked.status).toBe(429);
    expect(blocked.body).toMatchObject({ code: 'rate_limited', status: 429 });
    expect(blocked.headers.get('content-type')).toContain('application/problem+json');
    const retryAfter = Number(blocked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(600);

    // The failures also count against the address: another client from it is held off too.
    const other = await app.app.get(TransactionalCommandBus).execute<CreatedClient>(new CreateClientCommand(t.tenant_id));
    const held = await app.post(TOKEN, { grant_type: 'client_credentials', client_id: other.client_id, client_secret: other.client_secret });
    expect(held.status).toBe(429);
    expect(held.body.code).toBe('rate_limited');
  });
});
