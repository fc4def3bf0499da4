import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { TestApp } from '../../support/test-app';

process.env.WEBHOOK_RELAY_POLL_MS = '200';

/**
 * The Python client (clients/python, standard library only) runs its unittest suite — offline
 * tests and the whole flow against this service — in python3, with the service's address and a
 * fresh tenant's credentials in its environment. Every test must run (none skipped) and pass.
 */
describe('Python client against the service', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await TestApp.start();
  });
  afterAll(async () => {
    await app.close();
  });

  it('python3 -m unittest passes, the live flow included', async () => {
    const tenant = await app.createTenant('Python Co');
    const result = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = execFile(
        'python3',
        ['-m', 'unittest', '-v'],
        {
          cwd: join(__dirname, '..', '..', '..', 'clients', 'python'),
          env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', RECEIVABLES_BASE_URL: app.baseUrl, RECEIVABLES_CLIENT_ID: tenant.client_id, RECEIVABLES_CLIENT_SECRET: tenant.client_secret },
          timeout: 90_000,
        },
        (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, output: `${stdout}${stderr}` }),
      );
      child.stdin?.end();
    });
    expect(result.output).not.toMatch(/skipped/);
    expect(result.output).toMatch(/test_flow .* ok/);
    expect({ code: result.code, output: result.output }).toEqual({ code: 0, output: expect.stringMatching(/\nOK\n?$/) });
  }, 120_000);
});
