import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { OutboxWriter } from '../../../src/shared/infrastructure/outbox/outbox.writer';
import { TestApp, TestTenant } from '../../support/test-app';
import { WebhookReceiver } from '../../support/webhook-receiver';

/**
 * Writes one event through the OutboxWriter, as an aggregate's save would, and returns its
 * id (the webhook-id it must arrive with). Used for event types whose API is not under test.
 */
export async function emitEvent(
  app: TestApp,
  tenantId: string,
  type: string,
  object: Record<string, unknown> = { id: `obj_${Math.random().toString(36).slice(2)}` },
  previous?: Record<string, unknown>,
): Promise<string> {
  const writer = app.app.get(OutboxWriter);
  return app.dataSource.transaction(async (m) => {
    await writer.write(m, [
      {
        type,
        aggregateType: type.split('.')[0],
        aggregateId: String(object.id),
        tenantId,
        occurredAt: new Date(),
        data: previous ? { object, previous_attributes: previous } : { object },
      },
    ]);
    const [row] = await m.query(`SELECT id FROM outbox WHERE tenant_id = $1 ORDER BY seq DESC LIMIT 1`, [tenantId]);
    return row.id as string;
  });
}

export async function subscribe(app: TestApp, tenant: TestTenant, url: string, events: string[]): Promise<{ id: string; secret: string }> {
  const res = await app.post('/api/v1/webhooks', { url, events }, tenant.token);
  if (res.status !== 201) throw new Error(`subscribe failed: ${res.status} ${res.text}`);
  return res.body;
}

export async function deliveries(app: TestApp, tenant: TestTenant, endpointId: string, query = ''): Promise<any[]> {
  const res = await app.get(`/api/v1/webhooks/${endpointId}/deliveries?limit=100${query}`, tenant.token);
  if (res.status !== 200) throw new Error(`deliveries failed: ${res.status} ${res.text}`);
  return res.body.data;
}

export async function waitUntil(check: () => Promise<boolean> | boolean, timeoutMs = 20_000, what = 'condition'): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Every received request verifies with the secret and carries the event id as webhook-id. */
export function expectSigned(requests: ReturnType<WebhookReceiver['at']>, secret: string): void {
  for (const r of requests) {
    expect(WebhookReceiver.verify(r, secret)).toEqual(r.event);
    expect(r.headers['webhook-id']).toBe(r.event.id);
  }
}

/** The application in a child process (test/support/app-process.js) on an existing database. */
export async function spawnApp(databaseUrl: string, env: Record<string, string>, startTimeoutMs = 120_000): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [join(__dirname, '..', '..', 'support', 'app-process.js')], {
    env: { ...process.env, LOG_LEVEL: 'silent', WEBHOOK_ALLOW_PRIVATE_URLS: 'true', ...env, DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`child app did not start: ${stderr}`)), startTimeoutMs);
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      const m = /READY (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`child app exited with ${code}: ${stderr}`));
    });
  });
  return { child, port };
}

export function killHard(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}
