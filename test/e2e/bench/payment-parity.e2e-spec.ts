import { seededBench } from './seeded-bench';

// Plain CommonJS of the bench (no types): the same check `npm run bench` runs before loading POST /payments.
const { comparePaymentWrites } = require('../../../bench/lib/payment-parity') as {
  comparePaymentWrites(o: { url: string; tenant: unknown; workDir: string }): Promise<{ problems: string[]; outcomes: string[]; statementDifferences: string[] }>;
};

/**
 * The benchmark's POST /payments baseline (bench/baseline/payments.js) must do the service's work,
 * or the bench's ratio measures the difference in work instead of the framework. On two copies of
 * one seeded database, the compiled service and the baseline are posted the same payments (the
 * bench's reference match, the bank import's three kinds of credit, rule 3, a two-line remittance);
 * the answers and every row written must be equal apart from generated ids and times.
 */
describe('bench: the payments baseline writes what the service writes, with the same statements', () => {
  const bench = seededBench('payment-parity-');

  it('same answers and rows for the six payments', async () => {
    const { problems, outcomes, statementDifferences } = await comparePaymentWrites({ url: bench.url, tenant: bench.tenant, workDir: bench.workDir });
    expect(problems).toEqual([]);
    // And by the same statements, in the same order (each server's SQL trace).
    expect(statementDifferences).toEqual([]);
    expect(outcomes).toHaveLength(6);
    // The bench's own scenario really is matched by reference on both.
    expect(outcomes[0]).toMatch(/^reference \(bench scenario\): 201 matched by reference, same rows$/);
  });
});
