import { join } from 'node:path';
import { createTestDatabase } from '../../support/database';
import { startProcess } from '../../support/embedded-server';

/**
 * Item 10 of issue 11: startup printed ~50 lines of Nest's route mapping (RouterExplorer,
 * RoutesResolver) and module loading (InstanceLoader) before the banner. They are debug lines now: shown with LOG_LEVEL=debug
 * (or trace), not at the default info level. The application runs as it starts
 * (app.factory.ts) in a child process, whose whole output is looked at.
 */
describe('startup output (issue 11 item 10)', () => {
  let db: { url: string; drop(): Promise<void> };
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  async function startupOutput(logLevel: string): Promise<string> {
    const app = startProcess(join(__dirname, '..', '..', 'support', 'app-process.js'), { DATABASE_URL: db.url, LOG_LEVEL: logLevel });
    try {
      // Nest's last startup line, written after the route mapping (pino writes asynchronously,
      // so READY on stdout may come first).
      return await app.waitFor(/Nest application successfully started/);
    } finally {
      app.child.kill('SIGTERM');
      await app.exited;
    }
  }

  it('prints no route mapping at the default level (info)', async () => {
    const output = await startupOutput('info');
    expect(output).toMatch(/READY \d+/);
    expect(output).not.toMatch(/Mapped \{/);
    expect(output).not.toMatch(/RouterExplorer|RoutesResolver|InstanceLoader/);
    // Nest's own first and last lines still show: the filter is by context, not by level.
    expect(output).toMatch(/Starting Nest application/);
    const lines = output.split('\n').filter((l) => l.startsWith('{'));
    expect(lines.length).toBeLessThanOrEqual(5);
  }, 300_000);

  it('prints it with LOG_LEVEL=debug', async () => {
    const output = await startupOutput('debug');
    expect(output).toMatch(/Mapped \{\/api\/v1\/invoices, POST\} route/);
    expect(output).toMatch(/"level":20,[^\n]*"context":"RouterExplorer"/);
    expect(output).toMatch(/"context":"InstanceLoader"/);
  }, 300_000);
});
