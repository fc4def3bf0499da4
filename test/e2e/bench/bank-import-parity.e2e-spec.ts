import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { ensureBuilt } from '../../support/build';
import { runNode } from '../../support/child-process';
import { createTestDatabase } from '../../support/database';

// Plain CommonJS of the bench (no types).
const { compareImports } = require('../../../bench/lib/bank-import-compare') as {
  compareImports(o: { url: string; tenant: unknown; file: string; workDir: string }): Promise<{
    equal: boolean;
    differing: string[];
    serviceRows: { statement: Record<string, number> };
    baselineRows: unknown;
  }>;
};
const { writeCamt, openInvoicesForFile } = require('../../../bench/lib/bank-file') as {
  writeCamt(path: string, invoices: unknown[], entries: number): Promise<Record<string, number>>;
  openInvoicesForFile(pg: Client, tenantId: string, entries: number): Promise<unknown[]>;
};

/**
 * The bank import's raw-SQL baseline (bench/baseline/bank-import.js) must write what the service's
 * importer writes, or bench/bank-import-baseline.js's ratio compares different work. The bench's
 * camt.053 (structured remittance, invoice numbers in free text, unidentifiable payers; invoices paid
 * in several shares) is imported on two copies of one seeded database, through the compiled service
 * and through the baseline; the counts and a digest of every row each wrote must be equal.
 */
describe('bench: the bank-import baseline writes what the service writes', () => {
  let db: { url: string; drop(): Promise<void> };
  let workDir: string;
  let tenant: { tenant_id: string };

  beforeAll(async () => {
    await ensureBuilt('main.js');
    const seed = await ensureBuilt('cli/seed.js');
    db = await createTestDatabase();
    workDir = mkdtempSync(join(tmpdir(), 'bank-import-parity-'));
    const seeded = await runNode(seed, ['--invoices', '2000', '--customers', '20', '--json'], { DATABASE_URL: db.url, LOG_LEVEL: 'silent' });
    if (seeded.code !== 0) throw new Error(`seed failed: ${seeded.stderr}`);
    tenant = JSON.parse(seeded.stdout).tenants[0];
  }, 120_000);
  afterAll(async () => {
    await db?.drop();
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  it('same counts and rows for a 300-entry camt.053', async () => {
    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    const invoices = await openInvoicesForFile(pg, tenant.tenant_id, 300).finally(() => pg.end());
    const file = join(workDir, 'bench.camt053.xml');
    await writeCamt(file, invoices, 300);
    const result = await compareImports({ url: db.url, tenant, file, workDir });
    expect(result.differing).toEqual([]);
    expect(result.baselineRows).toEqual(result.serviceRows);
    expect(result.equal).toBe(true);
    // The file's three kinds of credit all happened: 85 % matched, 15 % unmatched.
    expect(result.serviceRows.statement).toMatchObject({ entries_total: 300, payments_created: 300, matched: 255, unmatched: 45, needs_review: 0 });
  });
});
