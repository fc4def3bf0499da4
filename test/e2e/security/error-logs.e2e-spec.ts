import { ChildProcess } from 'node:child_process';
import { killHard, spawnApp } from '../webhooks/support';
import { TestApp, TestTenant } from '../../support/test-app';

/**
 * A 500 caused by the database is logged with the SQL statement and the SQLSTATE, never with
 * its parameters (issue 12, finding 7): the production logger, in a process of its own, at
 * LOG_LEVEL=error.
 */
describe('error logs', () => {
  let app: TestApp;
  let t: TestTenant;
  let child: ChildProcess;
  let port: number;
  let stdout = '';

  beforeAll(async () => {
    app = await TestApp.start();
    t = await app.createTenant('Logged');
    // A constraint the service does not know about: inserting this description fails with 23514, a 500.
    await app.query(`ALTER TABLE webhook_endpoints ADD CONSTRAINT test_refuses_private CHECK (description IS DISTINCT FROM 'Jane Doe, 1 Private Lane')`);
    const spawned = await spawnApp(app.databaseUrl, { LOG_LEVEL: 'error', WORKERS_ENABLED: 'false' });
    child = spawned.child;
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    port = spawned.port;
  });
  afterAll(async () => {
    if (child) await killHard(child);
    await app.close();
  });

  it('carry the statement and SQLSTATE of a failed INSERT, not the secret or personal data it was given', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'https://hooks.example.com/x', events: ['*'], description: 'Jane Doe, 1 Private Lane' }),
    });
    expect(res.status).toBe(500);
    const requestId = res.headers.get('x-request-id')!;
    const line = await waitForLine(() => stdout, requestId);
    const entry = JSON.parse(line);
    expect(entry.err).toMatchObject({ code: '23514', constraint: 'test_refuses_private', table: 'webhook_endpoints', statement: expect.stringMatching(/^INSERT INTO "webhook_endpoints"/) });
    expect(line).not.toContain('Jane Doe');
    expect(line).not.toContain('whsec_');
    expect(line).not.toContain('hooks.example.com');
  });
});

async function waitForLine(read: () => string, needle: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const line = read()
      .split('\n')
      .find((l) => l.includes(needle) && l.includes('"err"'));
    if (line) return line;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no error log line for ${needle} in:\n${read()}`);
}
