import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GROUND_TRUTH_TOLERANCE } from '../../support/bank-ground-truth';
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

/** Customers (with their payer accounts) and invoices a bank file is matched against. */
export interface BankWorld {
  customers: { key: string; name: string; payer_accounts: string[] }[];
  invoices: { number: string; customer: string; amount: number; due_date: string }[];
}

/**
 * Creates `world` through the API under the ground truth's settings (short-pay tolerance, payer
 * name matching), `width` requests in flight at once (1: in order, so ids come time-ordered).
 */
export async function createWorld(app: TestApp, tenant: TestTenant, currency: string, world: BankWorld, width: number): Promise<void> {
  const settings = await app.patch('/api/v1/settings', { cash_application: { short_pay_tolerance: GROUND_TRUTH_TOLERANCE, payer_name_matching: true } }, tenant.token);
  expect(settings.status).toBe(200);
  const ids = new Map<string, string>();
  await inParallel(world.customers, width, async (customer) => {
    const res = await app.post('/api/v1/customers', { name: customer.name, currency, payer_accounts: customer.payer_accounts }, tenant.token);
    if (res.status !== 201) throw new Error(`customer ${customer.name}: ${res.status} ${res.text}`);
    ids.set(customer.key, res.body.id);
  });
  await inParallel(world.invoices, width, async (invoice) => {
    const res = await app.post(
      '/api/v1/invoices',
      {
        customer_id: ids.get(invoice.customer),
        number: invoice.number,
        issue_date: '2026-08-15',
        due_date: invoice.due_date,
        line_items: [{ description: 'Goods and services', quantity: 1, unit_amount: invoice.amount }],
      },
      tenant.token,
    );
    if (res.status !== 201) throw new Error(`invoice ${invoice.number}: ${res.status} ${res.text}`);
  });
}

/** Runs `work` over `items` with `width` of them in flight at once. */
async function inParallel<T>(items: T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}
