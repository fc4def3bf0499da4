import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt } from '../../support/build';
import { runNode } from '../../support/child-process';
import { createTestDatabase } from '../../support/database';

// Plain CommonJS of the bench (no types): the same check `npm run bench` runs before loading POST /payments.
const { comparePaymentWrites } = require('../../../bench/lib/payment-parity') as {
  comparePaymentWrites(o: { url: string; tenant: unknown; workDir: string }): Promise<{ problems: string[]; outcomes: string[] }>;
};

/**
 * The benchmark's POST /payments baseline (bench/baseline/payments.js) must do the service's work,
 * or the bench's ratio measures the difference in work instead of the framework. On two copies of
 * one seeded database, the compiled service and the baseline are posted the same payments (the
 * bench's reference match, the bank import's three kinds of credit, rule 3, a two-line remittance);
 * the answers and every row written must be equal apart from generated ids and times.
 */
describe('bench: the payments baseline writes what the service writes', () => {
  let db: { url: string; drop(): Promise<void> };
  let workDir: string;
  let tenant: unknown;

  beforeAll(async () => {
    await ensureBuilt('main.js');
    const seed = await ensureBuilt('cli/seed.js');
    db = await createTestDatabase();
    workDir = mkdtempSync(join(tmpdir(), 'payment-parity-'));
    const seeded = await runNode(seed, ['--invoices', '2000', '--customers', '20', '--json'], { DATABASE_URL: db.url, LOG_LEVEL: 'silent' });
    if (seeded.code !== 0) throw new Error(`seed failed: ${seeded.stderr}`);
    tenant = JSON.parse(seeded.stdout).tenants[0];
  }, 120_000);
  afterAll(async () => {
    await db?.drop();
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  it('same answers and rows for the six payments', async () => {
    const { problems, outcomes } = await comparePaymentWrites({ url: db.url, tenant, workDir });
    expect(problems).toEqual([]);
    expect(outcomes).toHaveLength(6);
    // The bench's own scenario really is matched by reference on both.
    expect(outcomes[0]).toMatch(/^reference \(bench scenario\): 201 matched by reference, same rows$/);
  });
});
