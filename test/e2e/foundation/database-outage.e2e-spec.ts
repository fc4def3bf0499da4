import { ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { migrate } from '../../../src/bootstrap';
import { createTestDatabase } from '../../support/database';
import { freePort, RunningServer, startProcess } from '../../support/embedded-server';
import { TestApp } from '../../support/test-app';
import { killHard, spawnApp, waitUntil } from '../webhooks/support';
import { LISTENER_APPLICATION_NAME } from '../../../src/shared/infrastructure/database/pg-listener';

/**
 * Item 1 of issue 11: a database that drops the service's connections (pg_terminate_backend, a
 * restart) must not take the process down. Requests during the gap fail fast with a 503 problem
 * (Retry-After), later ones succeed, and the LISTEN connections come back.
 * The application runs in a child process so that an exit is observable.
 */

interface Answer {
  status: number;
  type: string;
  retryAfter: string | null;
  body: any;
}

async function call(base: string, path: string, token?: string): Promise<Answer> {
  const res = await fetch(`${base}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type') ?? '', retryAfter: res.headers.get('retry-after'), body: text ? JSON.parse(text) : null };
}

async function token(base: string, clientId: string, clientSecret: string): Promise<string> {
  const res = await fetch(`${base}/api/v1/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
  });
  if (res.status !== 200) throw new Error(`token: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** Every answer is a success or a 503 problem that says when to retry; never a 500. */
function expectSuccessOr503(answers: Answer[]): void {
  for (const a of answers) {
    if (a.status < 300) continue;
    expect({ status: a.status, code: a.body?.code }).toEqual({ status: 503, code: 'service_unavailable' });
    expect(a.type).toContain('application/problem+json');
    expect(Number(a.retryAfter)).toBeGreaterThan(0);
  }
}

async function withClient<T>(url: string, work: (c: Client) => Promise<T>): Promise<T> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return await work(c);
  } finally {
    await c.end();
  }
}

/** Sets a tenant up through the in-process application, then stops it (the child serves the test). */
async function tenantOn(databaseUrl: string): Promise<{ client_id: string; client_secret: string }> {
  const setup = await TestApp.start({ databaseUrl });
  try {
    return await setup.createTenant('Outage');
  } finally {
    await setup.app.close();
  }
}

describe('database outage (issue 11 item 1)', () => {
  let child: ChildProcess | undefined;
  afterEach(async () => {
    if (child) await killHard(child);
    child = undefined;
  });

  it('survives pg_terminate_backend of all its connections while requests run, and serves again', async () => {
    const db = await createTestDatabase();
    try {
      const tenant = await tenantOn(db.url);
      const app = await spawnApp(db.url, {});
      child = app.child;
      const base = `http://127.0.0.1:${app.port}`;
      const bearer = await token(base, tenant.client_id, tenant.client_secret);
      expect((await call(base, '/api/v1/customers', bearer)).status).toBe(200);

      const answers: Answer[] = [];
      let running = true;
      const load = Array.from({ length: 4 }, async () => {
        while (running && child!.exitCode === null) answers.push(await call(base, '/api/v1/customers', bearer).catch(() => ({ status: 0 }) as Answer));
      });
      // Every connection of the application: the API pool, the rate limiter's pool, the LISTEN clients.
      const appBackends = `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name LIKE 'receivables%'`;
      let terminated = 0;
      for (let round = 0; round < 3; round++) {
        const before = answers.length;
        await waitUntil(() => answers.length >= before + 5 || child!.exitCode !== null, 20_000, 'requests between rounds');
        terminated += (await withClient(db.url, (c) => c.query(appBackends))).rows[0].n;
      }
      expect(terminated).toBeGreaterThan(3);
      // Requests keep being answered, and successfully again.
      const after = answers.length;
      await waitUntil(() => answers.slice(after).some((a) => a.status === 200) || child!.exitCode !== null, 20_000, 'a success after the terminations');
      running = false;
      await Promise.all(load);
      expect(child.exitCode).toBeNull();
      expect(answers.some((a) => a.status === 0)).toBe(false);
      expectSuccessOr503(answers);
      expect((await call(base, '/api/v1/customers', bearer)).status).toBe(200);
    } finally {
      if (child) await killHard(child);
      child = undefined;
      await db.drop();
    }
  }, 300_000);

  describe('a real restart of PostgreSQL (a cluster of its own, not the shared test server)', () => {
    let dir: string;
    let port: number;
    let pg: RunningServer | undefined;
    let url: string;
    const script = join(__dirname, '..', '..', 'support', 'embedded-pg-process.js');

    async function startPg(): Promise<string> {
      pg = startProcess(script, {}, 0, [dir, String(port)]);
      const out = await pg.waitFor(/URL (\S+)\n/);
      return /URL (\S+)\n/.exec(out)![1];
    }

    async function stopPg(): Promise<void> {
      if (!pg) return;
      pg.child.kill('SIGTERM');
      expect(await pg.exited).toBe(0);
      pg = undefined;
    }

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'receivables-outage-'));
      chmodSync(dir, 0o755); // as root PostgreSQL runs as its own user, which must reach the cluster
      port = await freePort();
      url = await startPg();
      await migrate(url, () => undefined);
    }, 120_000);

    afterAll(async () => {
      if (child) await killHard(child);
      await stopPg();
      rmSync(dir, { recursive: true, force: true });
    }, 300_000);

    it('answers 503 problems while PostgreSQL is down, 2xx after it is back, and LISTENs again', async () => {
      const tenant = await tenantOn(url);
      const app = await spawnApp(url, {});
      child = app.child;
      const base = `http://127.0.0.1:${app.port}`;
      const bearer = await token(base, tenant.client_id, tenant.client_secret);
      expect((await call(base, '/api/v1/customers', bearer)).status).toBe(200);
      const listeners = () =>
        withClient(url, (c) =>
          c.query<{ application_name: string }>(
            `SELECT application_name FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN %' ORDER BY 1`,
          ),
        ).then((r) => r.rows.map((row) => row.application_name));
      await waitUntil(async () => (await listeners()).includes(LISTENER_APPLICATION_NAME), 20_000, 'the relay LISTENing');
      // Every LISTEN connection the application has open now (one: the relay's and the caches' channels).
      const listening = await listeners();

      // Down: the helper process holds the cluster's only lease, so letting go stops it (fast shutdown).
      await stopPg();
      const during: Answer[] = [];
      for (let i = 0; i < 5; i++) {
        const started = Date.now();
        during.push(await call(base, '/api/v1/customers', bearer));
        // Fail fast: a refused connection is not waited on (the pools' connection timeout is
        // 10 s; the margin below it is for a loaded machine).
        expect(Date.now() - started).toBeLessThan(8_000);
      }
      for (const a of during) expect(a.status).toBe(503);
      expectSuccessOr503(during);
      // Readiness says the database is down; liveness stays up (nothing to restart).
      expect((await call(base, '/health/ready')).status).toBe(503);
      expect((await call(base, '/health')).status).toBe(200);
      expect(child.exitCode).toBeNull();

      // Up again on the same port.
      expect(await startPg()).toBe(url);
      await waitUntil(async () => (await call(base, '/api/v1/customers', bearer)).status === 200, 30_000, 'a success after the restart');
      // Each LISTEN connection is back (they reconnect with backoff and LISTEN again).
      await waitUntil(async () => {
        const now = await listeners();
        return listening.every((name) => now.includes(name));
      }, 40_000, `${listening.join(', ')} LISTENing again`);
      expect(child.exitCode).toBeNull();
    }, 150_000);
  });
});
