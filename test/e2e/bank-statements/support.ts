import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TestApp, TestTenant } from '../../support/test-app';

export const FIXTURES = join(__dirname, '../../fixtures/bank-files');
export const fixture = (name: string) => readFileSync(join(FIXTURES, name));

export const CONTENT_TYPES: Record<string, string> = {
  'camt.053': 'application/xml',
  'camt.054': 'application/xml',
  bai2: 'text/plain',
  mt940: 'text/plain',
  csv: 'text/csv',
};

export function postFile(app: TestApp, tenant: TestTenant, format: string, body: Buffer | string, headers: Record<string, string> = {}) {
  return app.request('POST', `/api/v1/bank-statements?format=${encodeURIComponent(format)}`, {
    token: tenant.token,
    rawBody: body,
    headers: { 'content-type': CONTENT_TYPES[format] ?? 'text/plain', ...headers },
  });
}

/** Waits (polling the resource, no fixed sleep) until the import completes; fails after `timeoutMs`. */
export async function completed(app: TestApp, tenant: TestTenant, id: string, timeoutMs = 60_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await app.get(`/api/v1/bank-statements/${id}`, tenant.token);
    if (res.status !== 200) throw new Error(`GET bank statement: ${res.status} ${res.text}`);
    if (res.body.status === 'completed') return res.body;
    if (Date.now() > deadline) throw new Error(`import ${id} not completed: ${JSON.stringify(res.body)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** §14: every entry is exactly one of created, existing, skipped, error; created ones by match status. */
export function expectCountsAddUp(s: any): void {
  expect(s.payments_created + s.payments_existing + s.entries_skipped + s.errors.length).toBe(s.entries_total);
  expect(s.matched + s.needs_review + s.unmatched).toBe(s.payments_created);
  if (s.status === 'completed') expect(s.entries_processed).toBe(s.entries_total);
}
