import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runNode } from '../../support/child-process';
import { TestApp } from '../../support/test-app';

/**
 * The served document, checked with tools nobody here wrote: Redocly's recommended rules
 * (0 errors, 0 warnings; redocly.yaml turns rules off only with a reason), and a client
 * generated with openapi-typescript that a strict TypeScript program uses without casts.
 */
const ROOT = resolve(__dirname, '../../..');
const bin = (path: string) => join(ROOT, 'node_modules', path);

describe('OpenAPI document under standard tools', () => {
  let dir: string;
  let file: string;
  let doc: any;

  beforeAll(async () => {
    const app = await TestApp.start();
    try {
      const res = await app.get('/api/v1/openapi.json');
      expect(res.status).toBe(200);
      doc = res.body;
    } finally {
      await app.close();
    }
    dir = mkdtempSync(join(tmpdir(), 'receivables-openapi-lint-'));
    file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(doc, null, 2));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('passes Redocly lint (recommended rules) with 0 errors and 0 warnings', async () => {
    const out = join(dir, 'lint.json');
    const res = await runNode(
      bin('@redocly/cli/bin/cli.js'),
      ['lint', file, '--config', join(ROOT, 'redocly.yaml'), '--format', 'json', '--max-problems', '1000'],
      { REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
      120_000,
    );
    const json = res.stdout.slice(res.stdout.indexOf('{'));
    let report: { totals: { errors: number; warnings: number }; problems: { ruleId: string; message: string; location: { pointer: string }[] }[] };
    try {
      report = JSON.parse(json);
    } catch {
      throw new Error(`redocly lint printed no JSON report (exit ${res.code}): ${res.stdout.slice(0, 500)} ${res.stderr.slice(0, 2000)}`);
    }
    writeFileSync(out, json);
    const problems = report.problems.map((p) => `${p.ruleId} ${p.location?.[0]?.pointer}: ${p.message}`);
    expect(problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 180_000);

  it('generates types with openapi-typescript that a strict program uses without casts (nullable fields take a string or null)', async () => {
    const types = join(dir, 'api.d.ts');
    const gen = await runNode(bin('openapi-typescript/bin/cli.js'), [file, '--output', types], { NO_COLOR: '1' }, 120_000);
    expect({ code: gen.code, stderr: gen.stderr.includes('✘') ? gen.stderr : '' }).toEqual({ code: 0, stderr: '' });
    writeFileSync(
      join(dir, 'client.ts'),
      `import type { components, paths } from './api';

type CreateCustomer = components['schemas']['CreateCustomerRequest'];
type UpdateCustomer = components['schemas']['UpdateCustomerRequest'];
type CreateInvoice = components['schemas']['CreateInvoiceRequest'];
type UpdateInvoice = components['schemas']['UpdateInvoiceRequest'];
type CreateWebhook = components['schemas']['CreateWebhookEndpointRequest'];
type Customer = components['schemas']['CustomerDetailResponse'];
type Problem = components['schemas']['ProblemResponse'];

const email: string | null = Math.random() > 0.5 ? 'ap@acme.example' : null;
export const create: CreateCustomer = {
  name: 'Acme Corp',
  currency: 'usd',
  email,
  external_id: null,
  phone: '+1 555 0100',
  credit_limit: 500000,
  billing_address: { line1: '1 Main Street', line2: null, city: 'Springfield', region: null, postal_code: '62701', country: 'US' },
};
export const clear: UpdateCustomer = { email: null, credit_limit: null };
export const patch: UpdateCustomer = { credit_hold: true };
export const invoice: Pick<CreateInvoice, 'po_number' | 'memo'> = { po_number: 'PO-7781', memo: null };
export const invoicePatch: UpdateInvoice = { memo: 'Thanks', po_number: null };
export const webhook: Pick<CreateWebhook, 'description'> = { description: null };

export function label(c: Customer): string {
  const limit: number | null = c.credit_limit;
  const address: string = c.billing_address === null ? 'no address' : c.billing_address.city ?? 'no city';
  const last: string = c.ar_summary.last_payment === null ? 'never paid' : c.ar_summary.last_payment.payment_date;
  return \`\${c.name} \${c.email ?? ''} \${limit ?? 'no limit'} \${address} \${last}\`;
}
export function problemStatus(p: Problem): number {
  return p.status;
}
export type CreateCustomerBody = NonNullable<paths['/api/v1/customers']['post']['requestBody']>['content']['application/json'];
export const viaPaths: CreateCustomerBody = create;
`,
    );
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, noEmit: true, target: 'ES2022', module: 'node16', moduleResolution: 'node16', types: [], skipLibCheck: false, noUncheckedIndexedAccess: true, exactOptionalPropertyTypes: true },
        files: ['client.ts'],
      }),
    );
    const tsc = await runNode(bin('typescript/bin/tsc'), ['-p', dir], {}, 120_000);
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.code).toBe(0);
  }, 180_000);
});
