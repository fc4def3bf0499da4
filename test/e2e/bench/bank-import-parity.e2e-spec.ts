import { join } from 'node:path';
import { Client } from 'pg';
import { seededBench } from './seeded-bench';

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
  const bench = seededBench('bank-import-parity-');

  it('same counts and rows for a 300-entry camt.053', async () => {
    const pg = new Client({ connectionString: bench.url });
    await pg.connect();
    const invoices = await openInvoicesForFile(pg, bench.tenant.tenant_id, 300).finally(() => pg.end());
    const file = join(bench.workDir, 'bench.camt053.xml');
    await writeCamt(file, invoices, 300);
    const result = await compareImports({ url: bench.url, tenant: bench.tenant, file, workDir: bench.workDir });
    expect(result.differing).toEqual([]);
    expect(result.baselineRows).toEqual(result.serviceRows);
    expect(result.equal).toBe(true);
    // The file's three kinds of credit all happened: 85 % matched, 15 % unmatched.
    expect(result.serviceRows.statement).toMatchObject({ entries_total: 300, payments_created: 300, matched: 255, unmatched: 45, needs_review: 0 });
  });
});
