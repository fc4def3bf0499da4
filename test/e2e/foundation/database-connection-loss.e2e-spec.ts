import { ChildProcess } from 'node:child_process';
import { CustomerMother } from '../../support/mothers/customer.mother';
import { InvoiceMother } from '../../support/mothers/invoice.mother';
import { ensureBuilt } from '../../support/build';
import { runNode } from '../../support/child-process';
import { createTestDatabase } from '../../support/database';
import { FaultPoint, PgFaultProxy } from '../../support/pg-fault-proxy';
import { TestApp } from '../../support/test-app';
import { WebhookReceiver } from '../../support/webhook-receiver';
import { killHard, spawnApp } from '../webhooks/support';
import { LISTENER_APPLICATION_NAME } from '../../../src/shared/infrastructure/database/pg-listener';

/**
 * docs/adr/0055: PostgreSQL terminating one of the service's connections (57P01) at the moment no
 * statement runs on it must never end the process, whoever holds the connection then. Each case
 * puts one kind of connection the service holds at one such moment, deterministically: a proxy
 * in front of PostgreSQL (test/support/pg-fault-proxy.ts) terminates the backend at a chosen
 * ReadyForQuery and hands the client that ReadyForQuery and the FATAL in one read. The process
 * must stay up, the request met by it must be a 503 problem (never a 500, nothing half-written),
 * and the next requests must succeed. The application runs in a child process so that an exit
 * is observable.
 */

const API = 'receivables-api';
const RELAY = 'receivables-api:webhook-relay';
const RATE_LIMIT = 'receivables-rate-limit';

interface Answer {
  status: number;
  type: string;
  retryAfter: string | null;
  body: any;
}

describe('a connection terminated while no statement runs on it (ADR 0055)', () => {
  let db: { url: string; drop(): Promise<void> };
  let tenant: { client_id: string; client_secret: string };
  let proxy: PgFaultProxy;
  let child: ChildProcess | undefined;
  let base: string;
  let bearer: string;
  let stderr = '';

  beforeAll(async () => {
    db = await createTestDatabase();
    const setup = await TestApp.start({ databaseUrl: db.url });
    try {
      tenant = await setup.createTenant('Connection loss');
    } finally {
      await setup.app.close();
    }
  }, 120_000);

  afterAll(async () => {
    await db?.drop();
  });

  beforeEach(async () => {
    proxy = await PgFaultProxy.start(db.url);
    // Heartbeats every 100 ms: the relay's pool is used without anything else going on.
    const app = await spawnApp(proxy.url, { WEBHOOK_RELAY_HEARTBEAT_MS: '100' });
    child = app.child;
    stderr = '';
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    base = `http://127.0.0.1:${app.port}`;
    bearer = await token();
  }, 120_000);

  afterEach(async () => {
    if (child) await killHard(child);
    child = undefined;
    await proxy.close();
  });

  async function call(method: string, path: string, body?: unknown): Promise<Answer> {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${bearer}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    }).catch((error: Error) => {
      // The process ended (what this file is about): say how.
      throw new Error(`${method} ${path}: ${error.message} (${(error.cause as Error)?.message}); the application's stderr:\n${stderr.slice(-3000)}`);
    });
    const text = await res.text();
    return { status: res.status, type: res.headers.get('content-type') ?? '', retryAfter: res.headers.get('retry-after'), body: text ? JSON.parse(text) : null };
  }

  async function token(): Promise<string> {
    const res = await fetch(`${base}/api/v1/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', ...tenant }),
    });
    if (res.status !== 200) throw new Error(`token: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { access_token: string }).access_token;
  }

  function expect503(a: Answer): void {
    expect({ status: a.status, code: a.body?.code }).toEqual({ status: 503, code: 'service_unavailable' });
    expect(a.type).toContain('application/problem+json');
    expect(Number(a.retryAfter)).toBeGreaterThan(0);
  }

  /** Requests until the fault has fired (each a success or a 503, never a 500), at most `max`. */
  async function requestUntil(fired: { done: boolean }, request: () => Promise<Answer>, max = 50): Promise<void> {
    for (let i = 0; i < max && !fired.done; i++) {
      const a = await request();
      if (a.status >= 300) expect503(a);
    }
    expect(fired.done).toBe(true);
  }

  function arm(applicationName: string, at: FaultPoint, after?: RegExp): { done: boolean; hit: Promise<{ pid: number }> } {
    const state = { done: false, hit: undefined as unknown as Promise<{ pid: number }> };
    state.hit = proxy.fault(applicationName, at, after).then((hit) => ((state.done = true), hit));
    return state;
  }

  /** The process is up and serves: a read and a write succeed (a new connection each time if need be). */
  async function expectServing(): Promise<void> {
    let last: Answer | undefined;
    // The pools may still hold connections terminated before the fault: each costs one 503 at most.
    for (let i = 0; i < 20; i++) {
      last = await call('GET', '/api/v1/customers');
      if (last.status !== 503) break;
    }
    expect(last!.status).toBe(200);
    expect((await call('POST', '/api/v1/customers', CustomerMother.request())).status).toBe(201);
    expect(child!.exitCode).toBeNull();
  }

  it('the API pool: a new connection terminated as the pool hands it to its first caller', async () => {
    const fault = arm(API, 'startup');
    expect(await proxy.terminateAll(API)).toBeGreaterThan(0);
    await requestUntil(fault, () => call('GET', '/api/v1/customers'));
    await fault.hit;
    await expectServing();
  });

  it('a unit of work: its connection terminated between two statements of its transaction', async () => {
    // Right after the customer's INSERT, before the outbox's statement and the COMMIT.
    const fault = arm(API, 'in-transaction', /^INSERT INTO customers/);
    const body = CustomerMother.request({ external_id: 'lost-mid-transaction' });
    const answer = await call('POST', '/api/v1/customers', body);
    expect(fault.done).toBe(true);
    expect503(answer);
    // Nothing half-written: the customer is not there, and the same request succeeds now.
    const list = await call('GET', '/api/v1/customers?limit=100');
    expect(list.status).toBe(200);
    expect(list.body.data.map((c: { external_id: string | null }) => c.external_id)).not.toContain('lost-mid-transaction');
    expect((await call('POST', '/api/v1/customers', body)).status).toBe(201);
    await expectServing();
  });

  it("the relay's pool: a new connection terminated as the pool hands it over", async () => {
    const fault = arm(RELAY, 'startup');
    expect(await proxy.terminateAll(RELAY)).toBeGreaterThan(0);
    // The relay heartbeats every 100 ms: it opens a new connection by itself.
    await fault.hit;
    await expectServing();
  });

  it("the relay's transaction: its connection terminated between BEGIN and its statement", async () => {
    const receiver = await WebhookReceiver.start();
    try {
      const subscribed = await call('POST', '/api/v1/webhooks', { url: receiver.url(), events: ['invoice.created'] });
      expect(subscribed.status).toBe(201);
      const customer = await call('POST', '/api/v1/customers', CustomerMother.request());
      expect(customer.status).toBe(201);
      const fault = arm(RELAY, 'in-transaction', /^BEGIN/);
      // An event with an endpoint to deliver it to: the relay fans it out in a transaction.
      expect((await call('POST', '/api/v1/invoices', InvoiceMother.request({ customer_id: customer.body.id }))).status).toBe(201);
      await fault.hit;
      await expectServing();
    } finally {
      await receiver.close();
    }
  });

  it("the rate limiter's pool: a new connection terminated as the pool hands it over", async () => {
    const fault = arm(RATE_LIMIT, 'startup');
    expect(await proxy.terminateAll(RATE_LIMIT)).toBeGreaterThan(0);
    await requestUntil(fault, () => call('GET', '/api/v1/customers'));
    await fault.hit;
    await expectServing();
  });

  it('the LISTEN connection: terminated right as it has connected again', async () => {
    const fault = arm(LISTENER_APPLICATION_NAME, 'startup');
    expect(await proxy.terminateAll(LISTENER_APPLICATION_NAME)).toBe(1);
    // It reconnects by itself (backoff from 250 ms).
    await fault.hit;
    await expectServing();
  });
});

describe('the seed CLI: its connection terminated right as it has connected (ADR 0055)', () => {
  it('fails with a clear message, not an unhandled error event', async () => {
    const db = await createTestDatabase();
    const proxy = await PgFaultProxy.start(db.url);
    try {
      const seed = await ensureBuilt('cli/seed.js');
      const fault = proxy.fault('receivables-seed', 'startup');
      const run = await runNode(seed, ['--invoices', '10', '--customers', '2'], { DATABASE_URL: proxy.url, LOG_LEVEL: 'silent' });
      await fault;
      expect(run.code).toBe(1);
      expect(run.stderr).toContain("error: the seed's database connection was lost: terminating connection due to administrator command");
      expect(run.stderr).not.toContain("Unhandled 'error' event");
    } finally {
      await proxy.close();
      await db.drop();
    }
  }, 300_000);
});
