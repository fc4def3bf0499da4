import { execFile, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { TestApp } from '../../support/test-app';

process.env.WEBHOOK_RELAY_POLL_MS = '200';

const PYTHON_DIR = join(__dirname, '..', '..', '..', 'clients', 'python');
/** A python with mypy (Debian's `mypy` package installs it for /usr/bin/python3), if any. */
const MYPY_PYTHON = ['python3', '/usr/bin/python3'].find((python) => spawnSync(python, ['-m', 'mypy', '--version']).status === 0);

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
          cwd: PYTHON_DIR,
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

  // The client's annotations are complete: mypy --strict (settings in pyproject.toml, Python 3.9).
  // Runs where mypy is installed (apt-get install mypy); skipped, and reported so, elsewhere.
  (MYPY_PYTHON ? it : it.skip)('mypy --strict finds no issues in the package and its tests', () => {
    const run = spawnSync(MYPY_PYTHON!, ['-m', 'mypy'], { cwd: PYTHON_DIR, encoding: 'utf8', timeout: 120_000 });
    expect({ status: run.status, output: `${run.stdout}${run.stderr}` }).toEqual({ status: 0, output: expect.stringContaining('Success: no issues found') });
  }, 150_000);
});
